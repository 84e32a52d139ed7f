import type { Repository } from '../../../domain/repos/repo.types.ts';
import { type Html, html } from '../html.ts';
import { cloneField } from './code-nav.ts';

/** What to do with a repository that has no branch yet: the clone URL and the push commands. */
export function emptyRepo(
  repo: Repository,
  cloneUrl: string,
  branch: string,
  canPush: boolean,
): Html {
  const existing = `git remote add origin ${cloneUrl}\ngit push -u origin ${branch}`;
  const fresh = `echo "# ${repo.name}" >> README.md\ngit init -b ${branch}\ngit add README.md\ngit commit -m "first commit"\ngit remote add origin ${cloneUrl}\ngit push -u origin ${branch}`;
  return html`<section class="Box mb-4" aria-labelledby="setup-title">
    <div class="Box-header"><h2 class="Box-title" id="setup-title">Quick setup</h2></div>
    <div class="Box-body">
      <p>This repository is empty.${canPush ? ' Push a branch to it to get started.' : ''}</p>
      ${cloneField(cloneUrl, 'clone-url')}
      <p class="f6 color-fg-muted mt-2">Git asks for a password: use a <a href="/settings/tokens">personal access token</a>.</p>
    </div>
    ${
      canPush
        ? html`<div class="Box-body">
      <h3 class="f5 mb-2">…or create a new repository on the command line</h3>
      <pre class="kiln-pre">${fresh}</pre>
      <button type="button" class="btn btn-sm mt-2" data-copy="${fresh}">Copy commands</button>
    </div>
    <div class="Box-body">
      <h3 class="f5 mb-2">…or push an existing repository from the command line</h3>
      <pre class="kiln-pre">${existing}</pre>
      <button type="button" class="btn btn-sm mt-2" data-copy="${existing}">Copy commands</button>
    </div>`
        : null
    }
  </section>`;
}
