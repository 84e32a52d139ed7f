import type { RefSummary } from '../../../domain/code/code.types.ts';
import type { Repository } from '../../../domain/repos/repo.types.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import { commitsUrl, commitUrl, srcUrl } from '../paths.ts';
import { fromEpochSeconds, relativeTime } from './time.ts';

/** One branch or tag: its name, when and by whom its tip was made, its commit and history. */
export function refRow(
  repo: Repository,
  ref: RefSummary,
  kind: 'branch' | 'tag',
  labels: Html | null,
  controls: Html | null = null,
): Html {
  const commit = ref.commit;
  return html`<li class="Box-row d-flex flex-items-center flex-wrap kiln-gap">
    <div class="flex-auto min-width-0">
      <a class="branch-name kiln-break" href="${srcUrl(repo, ref.name)}">${icon(kind === 'tag' ? 'tag' : 'git-branch')} ${ref.name}</a>${labels}
      ${commit ? html`<p class="f6 color-fg-muted mb-0 mt-1">Updated ${relativeTime(fromEpochSeconds(commit.committer.timestamp))} by ${commit.author.name}</p>` : null}
    </div>
    <a class="btn btn-sm text-mono" href="${commitUrl(repo, ref.sha)}">${ref.sha.slice(0, 7)}</a>
    <a class="btn btn-sm" href="${commitsUrl(repo, ref.name)}">${icon('history')}<span class="sr-only">History of ${ref.name}</span></a>
    ${controls}
  </li>`;
}
