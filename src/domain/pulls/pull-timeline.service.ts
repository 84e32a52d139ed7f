import type { CatFilePool } from '../../git/cat-file-pool.ts';
import { commitsBetween } from '../../git/pull-refs.ts';
import { isAncestor } from '../../git/refs.ts';
import { newId } from '../../lib/ids.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { PullInContext } from './pull.service.ts';
import type { PullEvent } from './pull-events.ts';
import type { PullTimelineStore } from './pull-timeline.store.ts';
import type { PullTimelineEntry, PullTimelineKind } from './pull-timeline.types.ts';

/** Most commits a push is counted up to; a larger push shows as this many. */
const MAX_COUNTED = 10_000;

/**
 * What happened to each pull request besides its reviews, kept for its timeline: every push to
 * its head (the commits it added, or a force push that rewrote it), closes, reopens and the
 * merge, each with who did it. Recorded from the pull's own announcements, so nothing that
 * changes a pull has to remember to write it.
 */
export class PullTimelineService {
  readonly #store: PullTimelineStore;
  readonly #repos: Pick<RepoService, 'handle'>;
  readonly #catFiles: CatFilePool;

  constructor(store: PullTimelineStore, repos: Pick<RepoService, 'handle'>, catFiles: CatFilePool) {
    this.#store = store;
    this.#repos = repos;
    this.#catFiles = catFiles;
  }

  /** The timeline entries of a pull already looked up for the viewer, oldest first. */
  listOf(context: PullInContext): Promise<PullTimelineEntry[]> {
    return this.#store.listByPull(context.pull.id);
  }

  /** Records that an administrator merged past what still blocked the merge. */
  async recordOverride(pullId: string, actorId: string, blockers: readonly string[]) {
    await this.#store.insert({
      id: newId(),
      pullId,
      kind: 'merge_override',
      actorId,
      oldSha: null,
      newSha: null,
      commits: 0,
      note: blockers.join('\n'),
      createdAt: new Date(),
    });
  }

  async record(event: PullEvent): Promise<void> {
    const { pull, base } = event.context;
    const entry = (kind: PullTimelineKind, extra: Partial<PullTimelineEntry> = {}) =>
      this.#store.insert({
        id: newId(),
        pullId: pull.id,
        kind,
        actorId: event.actor.id,
        oldSha: null,
        newSha: null,
        commits: 0,
        note: null,
        createdAt: new Date(),
        ...extra,
      });
    if (event.action === 'closed') return entry(event.merged ? 'merged' : 'closed');
    if (event.action === 'reopened') return entry('reopened');
    if (event.action !== 'synchronized' || !event.previousHeadSha) return;
    const handle = this.#repos.handle(base);
    const from = event.previousHeadSha;
    const to = pull.headSha;
    // An old head git no longer has was rewritten away: that is a force push too.
    const fastForward = await isAncestor(handle, from, to).catch(() => false);
    const commits = fastForward
      ? (await commitsBetween(this.#catFiles, handle, from, to, MAX_COUNTED)).length
      : 0;
    await entry(fastForward ? 'push' : 'force_push', { oldSha: from, newSha: to, commits });
  }
}
