import type { Delivery, DeliveryMessage } from './delivery.ts';
import type { FederatedPulls, PullMessage } from './federated-pulls.ts';
import type { InstancesService } from './instances.service.ts';
import type { KyselyMessageQueue } from './message-queue.ts';
import type { AnnounceMessage, Publisher } from './publisher.ts';

/** Every kind of work federation queues. */
export type QueueMessage = DeliveryMessage | AnnounceMessage | PullMessage;

/** What the worker hands each kind of message to. */
export type QueueWorkerDeps = {
  readonly queue: KyselyMessageQueue;
  readonly delivery: Pick<Delivery, 'deliver'>;
  readonly instances: Pick<InstancesService, 'failed' | 'refresh'>;
  readonly publisher: Pick<Publisher, 'run'>;
  readonly pulls: Pick<FederatedPulls, 'run'>;
  readonly report: (error: unknown) => void;
};

/**
 * The queue worker of one process (every replica runs one; each message runs once): signed
 * deliveries, announcements, and the work of pull requests across servers. What may succeed
 * later (a server away) throws, so that the queue tries it again with growing delays.
 */
export class QueueWorker {
  readonly #deps: QueueWorkerDeps;
  #running: { controller: AbortController; done: Promise<void> } | undefined;

  constructor(deps: QueueWorkerDeps) {
    this.#deps = deps;
  }

  start(): void {
    if (this.#running) return;
    void this.#deps.instances.refresh().catch(this.#deps.report);
    const controller = new AbortController();
    const done = this.#deps.queue
      .listen((message) => this.#run(message as QueueMessage), { signal: controller.signal })
      .catch((error: unknown) => this.#deps.report(error));
    this.#running = { controller, done };
  }

  async stop(): Promise<void> {
    const running = this.#running;
    if (!running) return;
    this.#running = undefined;
    running.controller.abort();
    await running.done;
  }

  async #run(message: QueueMessage): Promise<void> {
    if (message.kind === 'deliver') {
      // `retry` throws so that the queue backs off; anything else is done with.
      const outcome = await this.#deps.delivery.deliver(message);
      if (outcome === 'retry') throw new RetryLater();
      if (outcome === 'dropped') await this.#deps.instances.failed(new URL(message.inbox).host);
      return;
    }
    // An offer that cannot be answered now (the proposer's server away) is tried again later.
    if (
      message.kind === 'offer' ||
      message.kind === 'proposal-update' ||
      message.kind === 'ticket-update'
    )
      return this.#deps.pulls.run(message);
    // An announcement that fails (the repository vanished mid-way, git refused) is reported and
    // not retried: running it again would fail the same way.
    await this.#deps.publisher.run(message).catch(this.#deps.report);
  }
}

/** Thrown to hand a delivery back to the queue for a later attempt. */
class RetryLater extends Error {}
