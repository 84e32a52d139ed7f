import type { DomainEvents } from '../domain/events.ts';
import type { PullEvent } from '../domain/pulls/pull-events.ts';
import type { Push } from '../domain/repos/push-events.ts';
import type { Repository } from '../domain/repos/repo.types.ts';
import type { Account } from '../domain/users/user.types.ts';
import type { WebhookService } from '../domain/webhooks/webhook.service.ts';
import type { HookEvent } from '../domain/webhooks/webhook.types.ts';
import { repoPathOf } from '../present/branch.ts';
import { toApiRelease } from '../present/release.ts';
import { toApiReviewComment } from '../present/review-comment.ts';
import { chatPayload } from '../present/webhook-chat.ts';
import {
  createPayload,
  deletePayload,
  forkPayload,
  pullRequestPayload,
  pushPayload,
  releasePayload,
  repositoryPayload,
  reviewCommentPayload,
  ZERO_SHA,
} from '../present/webhook-payloads.ts';
import type { WebhookRecords } from './webhook-records.ts';

type ReviewCommentEvent = DomainEvents['review-comment.created'];

/**
 * Turns domain events into queued webhook deliveries, in Gitea's payloads; `wiring/
 * notifications.ts` subscribes each reaction below to its event. Reacting never delays the
 * change it hears of: the payload is built and queued in the background (tracked, so shutting
 * down waits for it), and the delivery itself happens later, in the worker. Nothing is built
 * for a repository no active hook could want: most have none, and a payload reads git (file
 * lists, pull heads) and the database.
 */
export class WebhookNotifier {
  readonly #hooks: WebhookService;
  readonly #records: WebhookRecords;
  readonly #report: (error: unknown) => void;
  readonly #pending = new Set<Promise<void>>();

  constructor(hooks: WebhookService, records: WebhookRecords, report: (error: unknown) => void) {
    this.#hooks = hooks;
    this.#records = records;
    this.#report = report;
  }

  /** A push: `create`/`delete` per ref made or removed, `push` per ref updated or made. */
  async pushed(push: Push): Promise<void> {
    this.#whenHooked(push.repo, () => this.#push(push));
  }

  /** A pull request change, as `pull_request` (or `pull_request_sync`). */
  async pullChanged(event: PullEvent): Promise<void> {
    this.#whenHooked(event.context.base, () => this.#pull(event));
  }

  /** A new line-review comment, as `pull_request_review_comment`. */
  async reviewCommented({ context, comment, actor }: ReviewCommentEvent): Promise<void> {
    const repo = context.base.repo;
    this.#whenHooked(repo, async () => {
      const api = await this.#records.pull({ ...context, base: repo });
      const where = { repo, number: context.pull.number, author: actor };
      const apiComment = toApiReviewComment(comment, where, this.#records.context);
      await this.#send(repo, {
        event: 'pull_request_comment',
        eventType: 'pull_request_review_comment',
        subscription: 'pull_request_review_comment',
        payload: reviewCommentPayload(api, apiComment, {
          repository: await this.#records.repository(repo),
          sender: this.#records.user(actor),
        }),
      });
    });
  }

  /** A release published, updated or deleted, as `release` with that action. */
  async released(action: 'published' | 'updated' | 'deleted', event: ReleaseEvent): Promise<void> {
    const { repo, release: record, actor } = event;
    this.#whenHooked(repo, async () => {
      // A publication names no actor: its author published it (or the owner, once gone).
      const sender = actor ?? record.author ?? repo.owner;
      await this.#send(repo, {
        event: 'release',
        eventType: 'release',
        subscription: 'release',
        payload: releasePayload(action, toApiRelease(record, repo, this.#records.context), {
          repository: await this.#records.repository(repo),
          sender: this.#records.user(sender),
        }),
      });
    });
  }

  /** A repository created or deleted, as `repository`. */
  async repositoryChanged(
    action: 'created' | 'deleted',
    repo: Repository,
    actor?: Account,
  ): Promise<void> {
    this.#whenHooked(repo, () => this.#repository(repo, action, actor));
  }

  /** A fork, as `fork` on its source. */
  async forked({ fork, source, actor }: DomainEvents['repo.forked']): Promise<void> {
    this.#whenHooked(source, async () => {
      await this.#send(source, {
        event: 'fork',
        eventType: 'fork',
        subscription: 'fork',
        payload: forkPayload(await this.#records.repository(fork), {
          repository: await this.#records.repository(source),
          sender: this.#records.user(actor),
        }),
      });
    });
  }

  /** Waits for payloads still being built (shutdown, tests). */
  async settle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  #whenHooked(repo: Repository, work: () => Promise<void>): void {
    this.#later(async () => {
      if (await this.#hooks.anyActiveFor(repo)) await work();
    });
  }

  #later(work: () => Promise<void>): void {
    const run = work()
      .catch((error: unknown) => this.#report(error))
      .finally(() => this.#pending.delete(run));
    this.#pending.add(run);
  }

  async #send(
    repo: Repository,
    outgoing: {
      event: string;
      eventType: string;
      subscription: HookEvent;
      payload: unknown;
      branch?: string;
    },
  ) {
    const { payload, event } = outgoing;
    await this.#hooks.dispatch(repo, { ...outgoing, branch: outgoing.branch ?? null }, (type) =>
      chatPayload(type, event, payload),
    );
  }

  async #pull(event: PullEvent): Promise<void> {
    const { context, actor } = event;
    const { action, type } = pullHookOf(event);
    await this.#send(context.base, {
      event: 'pull_request',
      eventType: type,
      subscription: type,
      payload: pullRequestPayload(action, await this.#records.pull(context), {
        repository: await this.#records.repository(context.base),
        sender: this.#records.user(actor),
      }),
    });
  }

  async #repository(repo: Repository, action: 'created' | 'deleted', actor?: Account) {
    const owner = repo.owner;
    await this.#send(repo, {
      event: 'repository',
      eventType: 'repository',
      subscription: 'repository',
      payload: repositoryPayload(action, owner.kind === 'org' ? this.#records.user(owner) : null, {
        repository: await this.#records.repository(repo),
        sender: this.#records.user(actor ?? owner),
      }),
    });
  }

  /** A push becomes `create`/`delete` per ref made or removed, and `push` per ref updated or made. */
  async #push({ repo, pusher, changes }: Push): Promise<void> {
    const repository = await this.#records.repository(repo);
    const sender = this.#records.user(pusher);
    const scope = { repository, sender };
    for (const change of changes) {
      const tag = change.ref.startsWith('refs/tags/');
      const name = change.ref.replace(/^refs\/(heads|tags)\//, '');
      if (!tag && !change.ref.startsWith('refs/heads/')) continue;
      const type = tag ? ('tag' as const) : ('branch' as const);
      const branch = tag ? null : name;
      if (change.newSha === null) {
        await this.#send(repo, {
          event: 'delete',
          eventType: 'delete',
          subscription: 'delete',
          branch: branch ?? undefined,
          payload: deletePayload({ name, type }, scope),
        });
        continue;
      }
      if (change.oldSha === null) {
        await this.#send(repo, {
          event: 'create',
          eventType: 'create',
          subscription: 'create',
          branch: branch ?? undefined,
          payload: createPayload({ name, type, sha: change.newSha }, scope),
        });
      }
      const { commits, total } = await this.#records.pushedCommits(
        repo,
        change.newSha,
        change.oldSha,
      );
      const before = change.oldSha ?? ZERO_SHA;
      const compareUrl =
        change.oldSha === null || this.#records.context.baseUrl === null
          ? ''
          : `${this.#records.context.baseUrl}/repos/${repoPathOf(repo)}/compare/${change.oldSha}...${change.newSha}`;
      await this.#send(repo, {
        event: 'push',
        eventType: 'push',
        subscription: 'push',
        branch: branch ?? undefined,
        payload: pushPayload(
          {
            ref: change.ref,
            before,
            after: change.newSha,
            compareUrl,
            commits,
            totalCommits: total,
            pusher: sender,
          },
          scope,
        ),
      });
    }
  }
}

/**
 * A pull request change in Gitea's words: the same action names, but new commits come under
 * their own event type (`pull_request_sync`), and a merge is `closed` (the pull record it carries
 * says `merged: true`). Pure.
 */
export function pullHookOf(event: Pick<PullEvent, 'action'>): {
  readonly action: string;
  readonly type: 'pull_request' | 'pull_request_sync';
} {
  return {
    action: event.action,
    type: event.action === 'synchronized' ? 'pull_request_sync' : 'pull_request',
  };
}

type ReleaseEvent = {
  readonly repo: Repository;
  readonly release: Parameters<typeof toApiRelease>[0];
  readonly actor?: Account;
};
