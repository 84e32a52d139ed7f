import type { PullInContext } from './pulls/pull.service.ts';
import type { PullEvent } from './pulls/pull-events.ts';
import type { PullReview } from './pulls/pull-review.types.ts';
import type { ReviewComment } from './pulls/review-comment.types.ts';
import type { Release } from './releases/release.types.ts';
import type { Push } from './repos/push-events.ts';
import type { Repository } from './repos/repo.types.ts';
import type { Account, User } from './users/user.types.ts';

/**
 * Every event the domain announces, by name, with what it carries. Who publishes and who
 * subscribes is listed in docs/architecture.md ("Domain events"); subscribers are registered
 * only by the wiring modules of `src/wiring/`, so a reader finds every reaction there.
 */
export type DomainEvents = {
  /** A push landed: every ref that moved (`PushService.afterPush`, after receive-pack). */
  readonly push: Push;
  /** A pull request was opened, synchronized, edited, closed or reopened (`PullService`). */
  readonly pull: PullEvent;
  /** A line-review comment was written (`ReviewCommentService`). */
  readonly 'review-comment.created': {
    readonly context: PullInContext;
    readonly comment: ReviewComment;
    readonly actor: User;
  };
  /** A line-review comment's body was edited: as it now is (`ReviewCommentService`). */
  readonly 'review-comment.updated': {
    readonly context: PullInContext;
    readonly comment: ReviewComment;
    readonly actor: User;
  };
  /** A line-review comment was deleted: as it was (`ReviewCommentService`). */
  readonly 'review-comment.deleted': {
    readonly context: PullInContext;
    readonly comment: ReviewComment;
    readonly actor: User;
  };
  /** A review was submitted with a verdict, with the line comments it carries (`PullReviewService`). */
  readonly 'review.submitted': {
    readonly context: PullInContext;
    readonly review: PullReview;
    readonly comments: readonly ReviewComment[];
    readonly actor: User;
  };
  /** A repository was created, private ones too (`RepoLifecycleService`). */
  readonly 'repo.created': Repository;
  /** A repository's settings changed (after they are stored): before and after. */
  readonly 'repo.changed': { readonly before: Repository; readonly after: Repository };
  /** A repository was deleted (its row and directory are gone), with who did it. */
  readonly 'repo.deleted': { readonly repo: Repository; readonly actor: User };
  /** A fork is in place: the new repository, its source and who forked. */
  readonly 'repo.forked': {
    readonly fork: Repository;
    readonly source: Repository;
    readonly actor: User;
  };
  /** An organisation's settings changed (visibility among them): before and after. */
  readonly 'org.changed': { readonly before: Account; readonly after: Account };
  /** An organisation was deleted (after its row is gone). */
  readonly 'org.deleted': Account;
  /** A release was published, with its repository (`ReleaseService`). */
  readonly 'release.published': { readonly repo: Repository; readonly release: Release };
  /** A release was edited: as it now is, with who edited it. */
  readonly 'release.updated': {
    readonly repo: Repository;
    readonly release: Release;
    readonly actor: User;
  };
  /** A release was deleted: as it was, with who deleted it. */
  readonly 'release.deleted': {
    readonly repo: Repository;
    readonly release: Release;
    readonly actor: User;
  };
  /** Webhook deliveries were queued (`WebhookService`): a worker may start on them at once. */
  readonly 'webhook.queued': { readonly deliveries: number };
};

export type DomainEventName = keyof DomainEvents;

/** A reaction to one event; it may take long (publishers wait for it, see `EventBus`). */
export type Subscriber<N extends DomainEventName> = (event: DomainEvents[N]) => Promise<void>;

/** Where a subscriber's failure goes: the event it was handling, and what it threw. */
export type FailureReport = (error: unknown, event: DomainEventName) => void;

/** What a service that announces events is given. */
export type EventPublisher = Pick<EventBus, 'publish'>;

/**
 * The one bus of domain events, built once by the composition root. Its rules:
 * - **Order**: the subscribers of an event run one after another, in the order they subscribed
 *   (the order in which `app.ts` calls the wiring modules), each awaited before the next;
 *   `publish` resolves once all have run.
 * - **Isolation**: a subscriber that throws neither stops the ones after it nor fails the
 *   publisher: its error goes to the failure report (the bus's, or the one the publisher hands
 *   `publish`), so a reaction can never undo or fail the change it reacts to.
 *
 * @example
 *   const events = new EventBus((error, name) => log(name, error));
 *   events.subscribe('repo.created', async (repo) => announce(repo));
 *   await events.publish('repo.created', repo);
 */
export class EventBus {
  // Every event has its list from the start, so the type checker sees each list's own type.
  readonly #subscribers: { readonly [N in DomainEventName]: Subscriber<N>[] } = {
    push: [],
    pull: [],
    'review-comment.created': [],
    'review-comment.updated': [],
    'review-comment.deleted': [],
    'review.submitted': [],
    'repo.created': [],
    'repo.changed': [],
    'repo.deleted': [],
    'repo.forked': [],
    'org.changed': [],
    'org.deleted': [],
    'release.published': [],
    'release.updated': [],
    'release.deleted': [],
    'webhook.queued': [],
  };
  readonly #report: FailureReport;

  /** `report` hears every subscriber failure no publisher takes itself (by default nothing). */
  constructor(report: FailureReport = () => {}) {
    this.#report = report;
  }

  /** Adds a subscriber to the end of the event's list; returns what removes it again. */
  subscribe<N extends DomainEventName>(name: N, subscriber: Subscriber<N>): () => void {
    const list: Subscriber<N>[] = this.#subscribers[name];
    list.push(subscriber);
    return () => {
      const at = list.indexOf(subscriber);
      if (at >= 0) list.splice(at, 1);
    };
  }

  /**
   * Hands `event` to every subscriber of `name` in turn; never rejects. A failure goes to
   * `report` when given (a publisher that logs against its own request), else to the bus's.
   */
  async publish<N extends DomainEventName>(
    name: N,
    event: DomainEvents[N],
    report?: (error: unknown) => void,
  ): Promise<void> {
    const list: Subscriber<N>[] = this.#subscribers[name];
    // A copy: a subscriber may remove itself (or another) while the event is handed round.
    for (const subscriber of [...list]) {
      try {
        await subscriber(event);
      } catch (error) {
        if (report) report(error);
        else this.#report(error, name);
      }
    }
  }
}
