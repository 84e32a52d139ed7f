import type { EventBus } from '../domain/events.ts';
import type { WebhookNotifier } from '../notify/webhook-notifier.ts';

/**
 * Webhooks hear of pushes, pull request changes, review comments, releases, repositories and
 * forks. Subscribed last, so every other reaction to an event has run when its payload is built;
 * each reaction only starts the work in the background and returns.
 */
export function subscribeNotifications(
  events: Pick<EventBus, 'subscribe'>,
  notifier: WebhookNotifier,
): void {
  events.subscribe('push', (push) => notifier.pushed(push));
  events.subscribe('pull', (event) => notifier.pullChanged(event));
  events.subscribe('review-comment.created', (event) => notifier.reviewCommented(event));
  events.subscribe('release.published', (event) => notifier.released('published', event));
  events.subscribe('release.updated', (event) => notifier.released('updated', event));
  events.subscribe('release.deleted', (event) => notifier.released('deleted', event));
  events.subscribe('repo.created', (repo) => notifier.repositoryChanged('created', repo));
  events.subscribe('repo.deleted', ({ repo, actor }) =>
    notifier.repositoryChanged('deleted', repo, actor),
  );
  events.subscribe('repo.forked', (event) => notifier.forked(event));
}
