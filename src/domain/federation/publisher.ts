import { randomUUID } from 'node:crypto';
import type { CatFilePool } from '../../git/cat-file-pool.ts';
import { countNewCommits, revListCommits } from '../../git/log.ts';
import type { RefChange } from '../../git/refs.ts';
import type { Release } from '../releases/release.types.ts';
import type { Push } from '../repos/push-events.ts';
import { visibleToAnyone } from '../repos/repo.policy.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository } from '../repos/repo.types.ts';
import { queueToFollowers } from './fan-out.ts';
import type { FollowersStore } from './followers.store.ts';
import type { LocalActor, LocalActors } from './local-actors.ts';
import type { KyselyMessageQueue } from './message-queue.ts';
import type { OutboxStore } from './outbox.store.ts';
import { noteActivity, pushActivity } from './vocabulary.ts';

/** A `Push` lists at most this many commits (newest first); `totalItems` counts them all. */
export const MAX_PUSHED_COMMITS = 20;
const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
const BRANCH_PREFIX = 'refs/heads/';

/** Work the queue carries besides deliveries: what to announce, decided after the fact. */
export type AnnounceMessage =
  | {
      readonly kind: 'push';
      readonly repoId: string;
      readonly pusherHandle: string;
      readonly changes: readonly RefChange[];
    }
  | {
      readonly kind: 'release';
      readonly repoId: string;
      readonly tag: string;
      readonly name: string;
      readonly body: string;
    }
  | { readonly kind: 'repo-created'; readonly repoId: string };

/**
 * Publishes what happens to public repositories and users: a ForgeFed `Push` plus a
 * `Create{Note}` per pushed branch, a `Create{Note}` per release, and a note from the owner when
 * a public repository is made. Announcing only enqueues (one row), so a push or a release is
 * never slowed down by its followers; the queue's worker reads the commits, records the
 * activity in the actor's outbox and fans it out, one delivery per inbox (a shared inbox once).
 * Whether a repository is public is checked when the work runs, so nothing of a repository made
 * private meanwhile leaves the server.
 */
export class Publisher {
  readonly #actors: LocalActors;
  readonly #repos: RepoService;
  readonly #catFiles: CatFilePool;
  readonly #followers: FollowersStore;
  readonly #outbox: OutboxStore;
  readonly #queue: KyselyMessageQueue;

  constructor(deps: {
    actors: LocalActors;
    repos: RepoService;
    catFiles: CatFilePool;
    followers: FollowersStore;
    outbox: OutboxStore;
    queue: KyselyMessageQueue;
  }) {
    this.#actors = deps.actors;
    this.#repos = deps.repos;
    this.#catFiles = deps.catFiles;
    this.#followers = deps.followers;
    this.#outbox = deps.outbox;
    this.#queue = deps.queue;
  }

  async announcePush(push: Push): Promise<void> {
    if (!visibleToAnyone(push.repo)) return;
    const changes = push.changes.filter(
      (change) => change.newSha !== null && change.ref.startsWith(BRANCH_PREFIX),
    );
    if (changes.length === 0) return;
    await this.#queue.enqueue({
      kind: 'push',
      repoId: push.repo.id,
      pusherHandle: push.pusher.handle,
      changes,
    } satisfies AnnounceMessage);
  }

  async announceRelease(repo: Repository, release: Release): Promise<void> {
    if (!visibleToAnyone(repo)) return;
    const { tagName: tag, name, body } = release;
    await this.#queue.enqueue({
      kind: 'release',
      repoId: repo.id,
      tag,
      name,
      body,
    } satisfies AnnounceMessage);
  }

  async announceRepo(repo: Repository): Promise<void> {
    if (!visibleToAnyone(repo)) return;
    await this.#queue.enqueue({ kind: 'repo-created', repoId: repo.id } satisfies AnnounceMessage);
  }

  /** Runs one announcement taken from the queue. */
  async run(message: AnnounceMessage): Promise<void> {
    const repo = await this.#repos.findById(message.repoId);
    if (!repo || !visibleToAnyone(repo)) return;
    const actor = this.#actors.ofRepo(repo);
    if (message.kind === 'push') {
      for (const change of message.changes)
        await this.#push(actor, repo, message.pusherHandle, change);
    } else if (message.kind === 'release') {
      const page = `${actor.id}/releases`;
      const title = message.name || message.tag;
      const notes = message.body.trim() ? `<p>${escapeHtml(message.body.trim())}</p>` : '';
      await this.#publish(actor, (id, followers) =>
        noteActivity({
          id,
          actor: actor.id,
          followers,
          url: page,
          context: actor.id,
          published: new Date(),
          content: `<p>${escapeHtml(repo.owner.handle)}/${escapeHtml(repo.name)} released <a href="${escapeHtml(page)}">${escapeHtml(title)}</a></p>${notes}`,
        }),
      );
    } else {
      const owner = this.#actors.ofAccount(repo.owner);
      await this.#publish(owner, (id, followers) =>
        noteActivity({
          id,
          actor: owner.id,
          followers,
          url: actor.id,
          context: actor.id,
          published: new Date(),
          content: `<p>New repository <a href="${escapeHtml(actor.id)}">${escapeHtml(repo.owner.handle)}/${escapeHtml(repo.name)}</a>${repo.description ? `: ${escapeHtml(repo.description)}` : ''}</p>`,
        }),
      );
    }
  }

  async #push(actor: LocalActor, repo: Repository, pusherHandle: string, change: RefChange) {
    const { newSha, oldSha } = change;
    if (!newSha || !SHA.test(newSha) || (oldSha !== null && !SHA.test(oldSha))) return;
    const range = oldSha ? [newSha, `^${oldSha}`] : [newSha];
    const handle = this.#repos.handle(repo);
    const commits = await revListCommits(this.#catFiles, handle, [
      `--max-count=${MAX_PUSHED_COMMITS}`,
      ...range,
    ]);
    if (commits.length === 0) return;
    const total =
      commits.length < MAX_PUSHED_COMMITS
        ? commits.length
        : await countNewCommits(handle, newSha, oldSha);
    const branch = change.ref.slice(BRANCH_PREFIX.length);
    const pusher = this.#actors.urls.user(pusherHandle);
    const date = (seconds: number) => new Date(seconds * 1000);
    await this.#publish(actor, (id, followers) =>
      pushActivity({
        id,
        repo: actor.id,
        followers,
        pusher,
        published: new Date(),
        branch: {
          id: `${actor.id}/commits/${encodeURIComponent(branch)}`,
          name: branch,
          ref: change.ref,
        },
        totalCommits: total,
        commits: commits.map((commit) => ({
          id: `${actor.id}/commit/${commit.sha}`,
          sha: commit.sha,
          message: commit.message,
          authorName: commit.author.name,
          created: date(commit.author.timestamp),
          committed: date(commit.committer.timestamp),
        })),
      }),
    );
    const newest = commits[0];
    const subject = newest?.message.split('\n')[0] ?? '';
    await this.#publish(actor, (id, followers) =>
      noteActivity({
        id,
        actor: actor.id,
        followers,
        url: `${actor.id}/commits/${encodeURIComponent(branch)}`,
        context: actor.id,
        published: new Date(),
        content: `<p>${escapeHtml(pusherHandle)} pushed ${total} commit${total === 1 ? '' : 's'} to ${escapeHtml(repo.owner.handle)}/${escapeHtml(repo.name)} (${escapeHtml(branch)}): ${escapeHtml(subject)}</p>`,
      }),
    );
  }

  /** Records an activity in the actor's outbox and queues one delivery per distinct inbox. */
  async #publish(
    actor: LocalActor,
    build: (id: string, followers: string) => object,
  ): Promise<void> {
    const uuid = randomUUID();
    const activity = build(
      this.#actors.urls.activity(uuid),
      this.#actors.endpoints(actor).followers,
    );
    await this.#outbox.add(uuid, actor.key, activity);
    await queueToFollowers({ followers: this.#followers, queue: this.#queue }, actor, activity);
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
