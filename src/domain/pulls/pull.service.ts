import type { CatFilePool } from '../../git/cat-file-pool.ts';
import { type Diff, diffCommits, mergeBase } from '../../git/diff.ts';
import { fetchIntoRepo } from '../../git/merge.ts';
import { commitsBetween, setRef, streamDiff, streamPatch } from '../../git/pull-refs.ts';
import { type Commit, readCommit } from '../../git/read-objects.ts';
import { readRefFiles } from '../../git/read-ref.ts';
import { isValidRefName } from '../../git/ref-names.ts';
import { newId } from '../../lib/ids.ts';
import { Conflict, Forbidden, Invalid, NotFound } from '../errors.ts';
import type { EventPublisher } from '../events.ts';
import type { Page } from '../paging.ts';
import { visibleToAnyone } from '../repos/repo.policy.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository, VisibleRepo } from '../repos/repo.types.ts';
import type { UserService } from '../users/user.service.ts';
import type { User } from '../users/user.types.ts';
import { parseHead } from './compare-spec.ts';
import { mayEditPull } from './pull.policy.ts';
import type { PullFieldUpdate, PullStore } from './pull.store.ts';
import {
  MAX_PULL_BODY_BYTES,
  type Pull,
  type PullSort,
  type PullStateFilter,
  pullHeadRef,
} from './pull.types.ts';
import type { PullAction, PullEvent } from './pull-events.ts';

export type PullDeps = {
  readonly store: PullStore;
  readonly repos: RepoService;
  readonly users: UserService;
  readonly catFiles: CatFilePool;
  /** Where every change to a pull is announced (CI, webhooks); optional so tools can leave it out. */
  readonly events?: EventPublisher;
};

/**
 * A pull with the repositories it joins. The head is null once the head repository is deleted
 * or hidden from the base's readers (`headFeedsBase`); the pull's head branch then reads as its
 * `refs/pull/N/head`, so neither the head's owner nor its branch shows.
 */
export type PullInContext = {
  readonly base: VisibleRepo;
  readonly head: Repository | null;
  readonly pull: Pull;
};

const MAX_TITLE_LENGTH = 255;

/** A name that can follow `refs/heads/`; anything else names no branch (and is never read). */
function isBranchName(name: string): boolean {
  return isValidRefName(`refs/heads/${name}`);
}

/** Whether a head spec's owner (and repository, when named) are those of `repo`. */
export function namesRepo(spec: { owner?: string; repo?: string }, repo: Repository): boolean {
  return (
    spec.owner?.toLowerCase() === repo.owner.handle.toLowerCase() &&
    (spec.repo === undefined || spec.repo.toLowerCase() === repo.name.toLowerCase())
  );
}

/**
 * Whether a head repository's commits may be carried into the base (`refs/pull/N/head`) and its
 * owner, branch and tip shown on the base's pull: only when every reader of the base may read
 * the head. A public base is read by anyone, so a private head may not feed it (a fork made
 * private after its pull was opened). A private base's readers were shown the head by its owner
 * opening the pull into that group, so a private head may feed a private base.
 */
export function headFeedsBase(base: Repository, head: Repository): boolean {
  // "Public" here is what anyone may read (visibleToAnyone): a public repository of a private
  // organisation is as hidden from the base's readers as a private one.
  return head.id === base.id || visibleToAnyone(head) || !visibleToAnyone(base);
}

/** The pull as readers of its base see it when its head is gone or hidden from them. */
function withHeadConcealed(pull: Pull): Pull {
  return { ...pull, headBranch: pullHeadRef(pull.number) };
}

function inContext(base: VisibleRepo, pull: Pull, head: Repository | undefined): PullInContext {
  if (head && headFeedsBase(base.repo, head)) return { base, head, pull };
  return { base, head: null, pull: withHeadConcealed(pull) };
}

/** A pull as it is announced: with its repositories, without any reader's access. */
function announced({ base, head, pull }: PullInContext): PullEvent['context'] {
  return { base: base.repo, head, pull };
}

/** Refuses a title or body a pull may not have (Invalid, with the reason). */
export function checkText(title: string | undefined, body: string | undefined): void {
  if (title !== undefined && (title.trim() === '' || title.length > MAX_TITLE_LENGTH)) {
    throw new Invalid(`title must be 1 to ${MAX_TITLE_LENGTH} characters`);
  }
  if (body !== undefined && Buffer.byteLength(body, 'utf8') > MAX_PULL_BODY_BYTES) {
    throw new Invalid('body must be at most 1 MB');
  }
}

/**
 * Pull requests: numbering, head tracking, listing and life cycle. Merging lives in
 * PullMergeService; review comments in ReviewCommentService.
 */
export class PullService {
  readonly #deps: PullDeps;

  constructor(deps: PullDeps) {
    this.#deps = deps;
  }

  /** The branch tip of `branch` in `repo`, read through its cat-file process (no spawn). */
  async branchTip(repo: Repository, branch: string): Promise<string | undefined> {
    if (!isBranchName(branch)) return undefined;
    const info = await this.#deps.catFiles.info(
      this.#deps.repos.handle(repo),
      `refs/heads/${branch}`,
    );
    return info?.type === 'commit' ? info.sha : undefined;
  }

  async create(
    actor: User,
    owner: string,
    name: string,
    input: { title: string; body?: string; head: string; base: string },
  ): Promise<PullInContext> {
    const base = await this.#deps.repos.get(actor, owner, name);
    checkText(input.title, input.body ?? '');
    const head = await this.#resolveHeadRepo(actor, base.repo, input.head);
    const [baseTip, headTip] = await Promise.all([
      this.branchTip(base.repo, input.base),
      this.branchTip(head.repo, head.branch),
    ]);
    if (!baseTip) throw new Invalid(`base branch does not exist [name: ${input.base}]`);
    if (!headTip) throw new Invalid(`head branch does not exist [name: ${head.branch}]`);
    if (!headFeedsBase(base.repo, head.repo)) {
      throw new Invalid('a private repository cannot be the head of a pull into a public one');
    }
    if (head.repo.id === base.repo.id && head.branch === input.base) {
      throw new Invalid('head and base must be different branches');
    }
    const now = Date.now();
    const pull = await this.#deps.store.insertNumbered({
      id: newId(),
      repoId: base.repo.id,
      title: input.title.trim(),
      body: input.body ?? '',
      authorId: actor.id,
      headRepoId: head.repo.id,
      headBranch: head.branch,
      headSha: headTip,
      baseBranch: input.base,
      createdAt: now,
    });
    await this.#recordHead(base.repo, head.repo, pull.number, headTip);
    await this.#announce({
      action: 'opened',
      context: { base: base.repo, head: head.repo, pull },
      actor,
      merged: false,
    });
    return { base, head: head.repo, pull };
  }

  async get(
    viewer: User | undefined,
    owner: string,
    name: string,
    number: number,
  ): Promise<PullInContext> {
    const base = await this.#deps.repos.get(viewer, owner, name);
    const pull =
      Number.isSafeInteger(number) && number > 0
        ? await this.#deps.store.findByNumber(base.repo.id, number)
        : undefined;
    if (!pull) throw new NotFound(`pull request does not exist [number: ${number}]`);
    return inContext(base, pull, await this.#headRepo(base.repo, pull));
  }

  async list(
    viewer: User | undefined,
    owner: string,
    name: string,
    filter: { state: PullStateFilter; sort: PullSort; poster?: string },
    page: Page,
  ): Promise<{ base: VisibleRepo; items: PullInContext[]; total: number }> {
    const base = await this.#deps.repos.get(viewer, owner, name);
    let authorId: string | undefined;
    if (filter.poster) {
      const poster = await this.#deps.users.findAccount(filter.poster);
      if (!poster) return { base, items: [], total: 0 };
      authorId = poster.id;
    }
    const { items, total } = await this.#deps.store.list(
      base.repo.id,
      { state: filter.state, sort: filter.sort, ...(authorId ? { authorId } : {}) },
      page,
    );
    const headIds = items.flatMap((pull) =>
      pull.headRepoId && pull.headRepoId !== base.repo.id ? [pull.headRepoId] : [],
    );
    const heads = await this.#deps.repos.findManyByIds(headIds);
    return {
      base,
      total,
      items: items.map((pull) =>
        inContext(
          base,
          pull,
          pull.headRepoId === base.repo.id ? base.repo : heads.get(pull.headRepoId ?? ''),
        ),
      ),
    };
  }

  /** Pulls the person opened, newest activity first, in repositories they can still see. */
  async recentByAuthor(user: User, limit = 10): Promise<Array<{ repo: Repository; pull: Pull }>> {
    const pulls = await this.#deps.store.listRecentByAuthor(user.id, limit);
    const repos = await this.#deps.repos.findManyByIds(pulls.map((pull) => pull.repoId));
    const visible = new Set(
      (await this.#deps.repos.accessOfMany(user, [...repos.values()])).map(({ repo }) => repo.id),
    );
    return pulls.flatMap((pull) => {
      const repo = repos.get(pull.repoId);
      return repo && visible.has(repo.id) ? [{ repo, pull }] : [];
    });
  }

  /** Title, body and state (`closed` closes, `open` reopens) by the author or a writer. */
  async update(
    actor: User,
    owner: string,
    name: string,
    number: number,
    change: { title?: string; body?: string; state?: 'open' | 'closed' },
  ): Promise<PullInContext> {
    const found = await this.get(actor, owner, name, number);
    const { pull, base } = found;
    if (!mayEditPull(actor, base.access, pull)) {
      throw new Forbidden('only the author or a writer may edit this pull request');
    }
    checkText(change.title, change.body);
    const update: PullFieldUpdate = {};
    if (change.title !== undefined) update.title = change.title.trim();
    if (change.body !== undefined) update.body = change.body;
    if (change.state !== undefined && change.state !== pull.state) {
      if (pull.merged) throw new Conflict('a merged pull request cannot be reopened');
      update.state = change.state;
      update.closedAt = change.state === 'closed' ? Date.now() : null;
      if (change.state === 'open' && found.head) {
        const tip = await this.branchTip(found.head, pull.headBranch);
        if (!tip) throw new Conflict('the head branch no longer exists');
        update.headSha = tip;
        await this.#recordHead(base.repo, found.head, pull.number, tip);
      }
    }
    await this.#deps.store.update(pull.id, update);
    const updated = await this.get(actor, owner, name, number);
    // One announcement per change: a new state says more than a new text sent with it.
    const action: PullAction | undefined =
      update.state === 'closed'
        ? 'closed'
        : update.state === 'open'
          ? 'reopened'
          : update.title !== undefined || update.body !== undefined
            ? 'edited'
            : undefined;
    if (action) await this.#announce({ action, context: announced(updated), actor, merged: false });
    return updated;
  }

  /** Tells the listeners that a merge closed the pull (`closed`, with `merged` set). */
  async announceMerged(actor: User, owner: string, name: string, number: number): Promise<void> {
    const merged = await this.get(actor, owner, name, number);
    await this.#announce({ action: 'closed', context: announced(merged), actor, merged: true });
  }

  /**
   * The head commit to show for each pull: the live branch tip while open, else the last recorded
   * head. See `#headTips` for how the tips are read: a page of pulls starts no git process.
   */
  async liveHeads(
    items: readonly PullInContext[],
  ): Promise<Map<string, { sha: string; branchExists: boolean }>> {
    const tips = await this.#headTips(items);
    const result = new Map<string, { sha: string; branchExists: boolean }>();
    for (const { pull } of items) {
      const tip = tips.get(pull.id);
      result.set(
        pull.id,
        pull.state === 'open' && tip
          ? { sha: tip, branchExists: true }
          : { sha: pull.headSha, branchExists: tip !== undefined },
      );
    }
    return result;
  }

  /**
   * Each pull's head branch tip, by pull id (absent when the branch or its repository is gone).
   * Heads in the base repository are asked of its cat-file process, all at once. Heads in forks
   * are read from the forks' ref files instead: a page can name more forks than the cat-file
   * pool keeps processes, and asking each of them through the pool would start (and evict) a
   * git process per fork on every view of the page.
   */
  async #headTips(items: readonly PullInContext[]): Promise<Map<string, string>> {
    const tips = new Map<string, string>();
    const forks = new Map<string, { repo: Repository; pulls: Pull[] }>();
    const sameRepo: Array<Promise<void>> = [];
    for (const { base, head, pull } of items) {
      if (!head || !isBranchName(pull.headBranch)) continue;
      if (head.id === base.repo.id) {
        sameRepo.push(
          this.branchTip(head, pull.headBranch).then((tip) => {
            if (tip) tips.set(pull.id, tip);
          }),
        );
        continue;
      }
      const fork = forks.get(head.id) ?? { repo: head, pulls: [] };
      fork.pulls.push(pull);
      forks.set(head.id, fork);
    }
    const forkReads = [...forks.values()].map(async ({ repo, pulls }) => {
      const refs = await readRefFiles(
        this.#deps.repos.handle(repo),
        pulls.map((pull) => `refs/heads/${pull.headBranch}`),
      );
      for (const pull of pulls) {
        const tip = refs.get(`refs/heads/${pull.headBranch}`);
        if (tip) tips.set(pull.id, tip);
      }
    });
    await Promise.all([...sameRepo, ...forkReads]);
    return tips;
  }

  /**
   * The pull's head as it is now: the head branch tip while the pull is open and the branch
   * exists (its commits brought into `refs/pull/N/head` first when a push has not been recorded
   * yet), else the recorded head. A reader: it never stores the pull's head (see
   * `onBranchPushed`), so a push it notices first is still announced, by its pusher.
   */
  async currentHead(context: PullInContext): Promise<string> {
    const { pull, head } = context;
    if (pull.state !== 'open' || !head) return pull.headSha;
    const tip = await this.branchTip(head, pull.headBranch);
    if (!tip) return pull.headSha;
    const recorded = (
      await this.#deps.catFiles.info(
        this.#deps.repos.handle(context.base.repo),
        pullHeadRef(pull.number),
      )
    )?.sha;
    if (recorded !== tip) await this.#recordHead(context.base.repo, head, pull.number, tip);
    return tip;
  }

  /**
   * The two ends of what a pull changes: the base it was (or will be) merged onto and its head.
   * For a merged pull the base is the merge commit's first parent, so the range stays what was
   * reviewed; for an open one it is the base branch tip.
   */
  async range(context: PullInContext): Promise<{ base: string; head: string }> {
    const { pull } = context;
    const handle = this.#deps.repos.handle(context.base.repo);
    const head =
      (await this.#deps.catFiles.info(handle, pullHeadRef(pull.number)))?.sha ?? pull.headSha;
    if (pull.merged && pull.mergeCommitSha) {
      const merge = await readCommit(this.#deps.catFiles, handle, pull.mergeCommitSha);
      return { base: merge.parents[0] ?? pull.mergeCommitSha, head };
    }
    const tip = await this.branchTip(context.base.repo, pull.baseBranch);
    return { base: tip ?? head, head };
  }

  /** The commits the pull brings, oldest first (at most 250, as GitHub shows). */
  async commits(context: PullInContext): Promise<Commit[]> {
    const { base, head } = await this.range(context);
    return commitsBetween(
      this.#deps.catFiles,
      this.#deps.repos.handle(context.base.repo),
      base,
      head,
      250,
    );
  }

  /** What the pull changes: its head against where it left the base (only `paths`, if given). */
  async diff(context: PullInContext, paths?: readonly string[]): Promise<Diff> {
    const handle = this.#deps.repos.handle(context.base.repo);
    const { base, head } = await this.range(context);
    const from = (await mergeBase(handle, base, head)) ?? base;
    return diffCommits(this.#deps.catFiles, handle, {
      from,
      to: head,
      ...(paths === undefined ? {} : { paths }),
    });
  }

  /** The pull's changes as git's plain diff (`.diff`) or as mailbox patches (`.patch`). */
  async download(
    viewer: User | undefined,
    owner: string,
    name: string,
    number: number,
    kind: 'diff' | 'patch',
  ) {
    const context = await this.get(viewer, owner, name, number);
    const { base, head } = await this.range(context);
    const handle = this.#deps.repos.handle(context.base.repo);
    return kind === 'diff' ? streamDiff(handle, base, head) : streamPatch(handle, base, head);
  }

  /** Gitea's `review_comments` of each pull as `viewer` sees them (no one else's pending ones). */
  async reviewCommentCounts(pulls: readonly Pull[], viewer?: User): Promise<Map<string, number>> {
    return this.#deps.store.countReviewComments(
      pulls.map((pull) => pull.id),
      viewer?.id,
    );
  }

  /**
   * The push use case: brings every open pull of a pushed branch to the branch's new tip and
   * announces the move as `synchronized`, by whoever pushed.
   *
   * INVARIANT: every move of a pull's head is announced exactly once, as `synchronized` by the
   * person who pushed it, whichever path notices it first. Only this method moves the stored
   * head (`pull_requests.head_sha`) of an open pull, and only by a compare-and-set from the head
   * it read: whoever wins announces, and a loser reads again. Readers that see a newer branch
   * tip (pages, the API, review comments, a merge) may bring its commits into
   * `refs/pull/N/head` but never store it, since they do not know who pushed it; a run is made
   * only from an announcement, never from that ref moving.
   */
  async onBranchPushed(
    headRepo: Repository,
    branch: string,
    newSha: string,
    pusher: User,
  ): Promise<void> {
    for (const listed of await this.#deps.store.listOpenByHead(headRepo.id, branch)) {
      const base =
        listed.repoId === headRepo.id ? headRepo : await this.#deps.repos.findById(listed.repoId);
      // A head hidden from the base's readers feeds it no more; it resumes if that changes.
      if (!base || !headFeedsBase(base, headRepo)) continue;
      await this.#recordHead(base, headRepo, listed.number, newSha);
      let pull: Pull | undefined = listed;
      // A pull opened on this very tip (while the push was still being announced) has
      // already been announced as opened; a lost race re-reads the head that won it.
      while (pull && pull.state === 'open' && pull.headSha !== newSha) {
        if (await this.#deps.store.advanceHead(pull.id, pull.headSha, newSha)) {
          await this.#announce({
            action: 'synchronized',
            context: { base, head: headRepo, pull: { ...pull, headSha: newSha } },
            actor: pusher,
            merged: false,
            previousHeadSha: pull.headSha,
          });
          break;
        }
        pull = await this.#deps.store.findByNumber(base.id, pull.number);
      }
    }
  }

  /** Never throws: the subscribers' failures go to the bus's report. */
  async #announce(event: PullEvent): Promise<void> {
    await this.#deps.events?.publish('pull', event);
  }

  /** Brings the head commit into the base repository under `refs/pull/N/head`. */
  async #recordHead(
    base: Repository,
    head: Repository,
    number: number,
    sha: string,
  ): Promise<void> {
    const baseHandle = this.#deps.repos.handle(base);
    if (base.id === head.id) await setRef(baseHandle, pullHeadRef(number), sha);
    else await fetchIntoRepo(baseHandle, this.#deps.repos.handle(head), sha, pullHeadRef(number));
  }

  async #headRepo(base: Repository, pull: Pull): Promise<Repository | undefined> {
    if (pull.headRepoId === base.id) return base;
    if (!pull.headRepoId) return undefined;
    return this.#deps.repos.findById(pull.headRepoId);
  }

  /**
   * `branch` (this repository) or `owner:branch` / `owner/repo:branch` (a fork of it, or the
   * repository it was forked from, as Gitea reads it). The caller must be able to read the head
   * repository: one it cannot read is reported exactly like one that does not exist.
   */
  async #resolveHeadRepo(
    actor: User,
    base: Repository,
    head: string,
  ): Promise<{ repo: Repository; branch: string }> {
    const spec = parseHead(head);
    if (spec.owner === undefined) {
      if (head.includes(':')) throw new Invalid('head must be "branch" or "owner:branch"');
      return { repo: base, branch: spec.branch };
    }
    const found = (await this.headCandidates(actor, base)).find((repo) => namesRepo(spec, repo));
    if (!found) {
      const where = head.slice(0, head.indexOf(':'));
      throw new Invalid(`head repository does not exist [head: ${where}]`);
    }
    return { repo: found, branch: spec.branch };
  }

  /**
   * The repositories a pull into `base` may come from, as `viewer` may see them: the base
   * itself, the repository it was forked from, and its forks.
   */
  async headCandidates(viewer: User | undefined, base: Repository): Promise<Repository[]> {
    const [parent, forks] = await Promise.all([
      this.#deps.repos.visibleParent(viewer, base),
      this.#deps.repos.listForksVisible(viewer, base, { limit: 1000, offset: 0 }),
    ]);
    return [base, ...(parent ? [parent.repo] : []), ...forks.items.map(({ repo }) => repo)];
  }
}
