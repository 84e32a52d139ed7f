import { TableChangeClock } from '../db/change-clock.ts';
import { CommitAuthorStore } from '../domain/branches/commit-author.store.ts';
import { PushHistory } from '../domain/code/push-history.ts';
import type { EventBus } from '../domain/events.ts';
import type { PullService } from '../domain/pulls/pull.service.ts';
import type { RepoService } from '../domain/repos/repo.service.ts';
import { DeliveryStore } from '../domain/webhooks/delivery.store.ts';
import { DeliveryWorker } from '../domain/webhooks/delivery-worker.ts';
import { WebhookService } from '../domain/webhooks/webhook.service.ts';
import { WebhookStore } from '../domain/webhooks/webhook.store.ts';
import { testPushEvents } from '../notify/test-event.ts';
import { WebhookNotifier } from '../notify/webhook-notifier.ts';
import { WebhookRecords } from '../notify/webhook-records.ts';
import { KILN_VERSION } from '../version.ts';
import type { CoreParts } from './parts.ts';

export type WebhookParts = CoreParts & {
  readonly repos: RepoService;
  readonly pulls: PullService;
};

/**
 * Webhooks: the service, the worker draining the delivery queue, and the notifier that turns
 * domain events into Gitea payloads (built with the REST converters, hence in `notify/`; its
 * subscriptions are `notifications.ts`'s).
 */
export function buildWebhooks(parts: WebhookParts) {
  const { config, database, repos } = parts;
  const { db } = database;
  const report = (error: unknown) => {
    process.stderr.write(`kiln: webhook work failed: ${String(error)}\n`);
  };
  // Only this store writes `webhooks`, so its own clock lets readers keep what they read.
  const hooks = new WebhookStore(db, new TableChangeClock(database.changes));
  const deliveries = new DeliveryStore(db, database.dialect);
  const records = new WebhookRecords({
    repos,
    users: parts.users,
    pulls: parts.pulls,
    history: new PushHistory(repos, parts.git.catFiles),
    authors: new CommitAuthorStore(db),
    context: {
      baseUrl: config.baseUrl ? config.baseUrl.href.replace(/\/+$/, '') : null,
      // Payloads name the SSH clone URL as REST does (empty while SSH is off or its port unknown).
      ssh: config.ssh,
    },
  });
  const webhooks = new WebhookService({
    hooks,
    deliveries,
    repos,
    orgs: parts.orgs,
    admins: parts.admins,
    secretKey: config.secretKey,
    events: parts.events,
    testEvents: testPushEvents(records),
    caches: parts.caches,
  });
  const worker = new DeliveryWorker({
    hooks,
    deliveries,
    service: webhooks,
    settings: config.webhook,
    userAgent: `Kiln/${KILN_VERSION}`,
    report,
    caches: parts.caches,
  });
  const notifier = new WebhookNotifier(webhooks, records, report);
  return { webhooks, webhookWorker: worker, webhookNotifier: notifier };
}

/** The delivery worker looks at the queue as soon as deliveries are queued. */
export function subscribeWebhooks(
  events: Pick<EventBus, 'subscribe'>,
  worker: Pick<DeliveryWorker, 'kick'>,
): void {
  events.subscribe('webhook.queued', async () => worker.kick());
}
