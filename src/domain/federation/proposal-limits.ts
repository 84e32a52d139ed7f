import { mergeBase } from '../../git/diff.ts';
import { countCommitsBetween, formatPatches } from '../../git/patches.ts';
import type { RepoHandle } from '../../git/repo-paths.ts';
import { PROPOSED_PULL_LIMITS } from '../pulls/pull.types.ts';

/**
 * The patches of the commits `headSha` has beyond `baseSha`, or why they cannot be a pull
 * request: no shared history, nothing new, or more than the limits every pull obeys. Both sides
 * ask it — the author's server before sending, the upstream before opening — so a proposal is
 * refused early for the same reason the upstream would give.
 */
export async function proposedPatches(
  repo: RepoHandle,
  baseSha: string,
  headSha: string,
): Promise<{ readonly patches: string } | { readonly problem: string }> {
  const from = await mergeBase(repo, baseSha, headSha);
  if (!from) return { problem: 'the branch shares no history with its target' };
  const { maxCommits, maxPatchBytes } = PROPOSED_PULL_LIMITS;
  const count = await countCommitsBetween(repo, from, headSha, maxCommits);
  if (count === 0) return { problem: 'the branch has no commits its target lacks' };
  if (count > maxCommits) {
    return { problem: `a pull request may carry at most ${maxCommits} commits` };
  }
  const patches = await formatPatches(repo, from, headSha, maxPatchBytes);
  if (patches.over) {
    return { problem: `a pull request's patches may be at most ${maxPatchBytes} bytes` };
  }
  return { patches: patches.text };
}
