import { randomUUID } from 'node:crypto';
import { deleteRef } from '../../git/refs.ts';
import { fetchRemoteBranch, type RemoteFetchOptions } from '../../git/remote-fetch.ts';
import type { RepoService } from '../repos/repo.service.ts';
import { proposedPatches } from './proposal-limits.ts';

/** Why a proposal (or a new head of one) is refused: the message may go back to its proposer. */
export class Refused extends Error {}

/** The proposer's branch could not be fetched (its server away, or the branch gone). */
export class Unfetchable extends Refused {}

/**
 * Fetches `branch` of the fork at `cloneUri` (reached as `reach` allows: checked and pinned
 * address, size and time limits) into a scratch ref, checks the commits it brings beyond
 * `baseSha` against the limits every pull obeys, and hands its tip to `use` while the scratch
 * ref still holds the commits. The first fetch of a proposal and every later one go through
 * here, so a new head is held to exactly what the first one was.
 */
export async function withProposedHead<T>(
  handle: ReturnType<RepoService['handle']>,
  fork: { readonly cloneUri: string; readonly branch: string; readonly reach: RemoteFetchOptions },
  baseSha: string,
  use: (headSha: string) => Promise<T>,
): Promise<T> {
  const scratch = `refs/kiln-incoming/${randomUUID()}`;
  const headSha = await fetchRemoteBranch(
    handle,
    fork.cloneUri,
    fork.branch,
    scratch,
    fork.reach,
  ).catch((error: unknown) => {
    throw new Unfetchable(`the branch ${fork.branch} could not be fetched from ${fork.cloneUri}`, {
      cause: error,
    });
  });
  try {
    const checked = await proposedPatches(handle, baseSha, headSha);
    if ('problem' in checked) throw new Refused(checked.problem);
    return await use(headSha);
  } finally {
    await deleteRef(handle, scratch, headSha).catch(() => {});
  }
}
