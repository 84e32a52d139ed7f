import type { CommitCheck } from '../../../domain/ci/commit-checks.ts';
import type { Repository } from '../../../domain/repos/repo.types.ts';
import type { Commit } from '../../../git/read-objects.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import { commitUrl, srcUrl } from '../paths.ts';
import { statusIcon } from './run-status.ts';
import { runUrl } from './runs-list.ts';
import { fromEpochSeconds, relativeTime, shortDate } from './time.ts';
import { commitTitle } from './tree.ts';

/** A commit's CI check as an icon linking to the run that decided it; nothing without runs. */
export function commitCheck(repo: Repository, check: CommitCheck | undefined): Html | null {
  if (check === undefined) return null;
  return html`<a class="kiln-check" href="${runUrl(repo, check.runNumber)}" aria-label="CI run #${check.runNumber}">${statusIcon(check.status)}</a>`;
}

/**
 * History as GitHub shows it: commits grouped under the day they were made, each with its CI
 * check when `checks` has one.
 */
export function commitList(
  repo: Repository,
  commits: readonly Commit[],
  checks: ReadonlyMap<string, CommitCheck> = new Map(),
): Html {
  const groups = new Map<string, Commit[]>();
  for (const commit of commits) {
    const day = shortDate(fromEpochSeconds(commit.committer.timestamp));
    groups.set(day, [...(groups.get(day) ?? []), commit]);
  }
  const sections = [...groups].map(([day, items]) => {
    const rows = items.map((commit) => {
      const href = commitUrl(repo, commit.sha);
      return html`<li class="Box-row d-flex flex-items-center kiln-gap">
        <div class="flex-auto min-width-0">
          <span class="d-flex flex-items-center kiln-gap"><a class="text-bold color-fg-default kiln-truncate d-block" href="${href}">${commitTitle(commit.message)}</a>${commitCheck(repo, checks.get(commit.sha))}</span>
          <p class="f6 color-fg-muted mb-0 mt-1"><strong>${commit.author.name}</strong> committed ${relativeTime(fromEpochSeconds(commit.committer.timestamp))}</p>
        </div>
        <a class="btn btn-sm text-mono" href="${href}" aria-label="Commit ${commit.sha.slice(0, 7)}">${commit.sha.slice(0, 7)}</a>
        <a class="btn btn-sm btn-octicon" href="${srcUrl(repo, commit.sha)}" aria-label="Browse the repository at this point">${icon('code')}</a>
      </li>`;
    });
    return html`<h2 class="f5 text-normal color-fg-muted mt-3 mb-2">${icon('git-commit')} Commits on ${day}</h2>
      <ol class="Box kiln-list">${rows}</ol>`;
  });
  return html`${sections}`;
}
