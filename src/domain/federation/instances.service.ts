import { Invalid } from '../errors.ts';
import type { FollowersStore } from './followers.store.ts';
import { covers } from './host-policy.ts';
import type { KyselyKvStore } from './kv.store.ts';
import type { QueueStore } from './queue.store.ts';
import type { RemoteStarsStore } from './remote-stars.store.ts';

/** One other server as an administrator sees it. */
export type KnownInstance = {
  readonly host: string;
  readonly followers: number;
  readonly stars: number;
  /** How many of its actors have sent activities here. */
  readonly actorsSeen: number;
  /** When one of them last did. */
  readonly lastActivity: Date | undefined;
  readonly blocked: boolean;
  /** When deliveries to it started failing, if they are failing now. */
  readonly failingSince: Date | undefined;
  /** Deliveries queued for it; `retrying` of them have failed at least once. */
  readonly pending: number;
  readonly retrying: number;
  /** Deliveries given up on (refused, or the server failing too long). */
  readonly failed: number;
};

const HOST = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:\d{1,5})?$/;
/** How often a replica rereads blocks made elsewhere (another replica, the CLI). */
const REFRESH_MS = 15_000;

/**
 * Other servers: which ones Kiln knows (through followers and stars) and which ones an
 * administrator blocked at run time, on top of `service.federation.blocked-hosts`. Blocks live in
 * the shared key-value store; each replica rereads them every 15 seconds and at once after a
 * change of its own, so a block from the CLI holds everywhere within that time. A blocked
 * server's followers are kept (nothing is delivered to them) and count again once unblocked.
 */
export class InstancesService {
  readonly #kv: KyselyKvStore;
  readonly #followers: Pick<FollowersStore, 'countByHost'>;
  readonly #stars: Pick<RemoteStarsStore, 'countByHost'>;
  readonly #queue: Pick<QueueStore, 'deliveries' | 'dropDeliveries'>;
  #blocked: ReadonlySet<string> = new Set();
  #readAt = 0;

  constructor(deps: {
    readonly kv: KyselyKvStore;
    readonly followers: Pick<FollowersStore, 'countByHost'>;
    readonly stars: Pick<RemoteStarsStore, 'countByHost'>;
    readonly queue: Pick<QueueStore, 'deliveries' | 'dropDeliveries'>;
  }) {
    this.#kv = deps.kv;
    this.#followers = deps.followers;
    this.#stars = deps.stars;
    this.#queue = deps.queue;
  }

  /** Notes that `actor` sent an activity (verified) just now. */
  async seen(actor: string): Promise<void> {
    await this.#kv.setFor(['actor-seen', new URL(actor).host, actor], Date.now(), null);
  }

  /** Notes a delivery to `host` given up on. Replicas racing may lose a count; it is a figure. */
  async failed(host: string): Promise<void> {
    const count = (await this.#kv.get<number>(['deliveries-failed', host])) ?? 0;
    await this.#kv.setFor(['deliveries-failed', host], count + 1, null);
  }

  /** The hosts blocked at run time, as last read (refreshed in the background when stale). */
  blockedHosts(): ReadonlySet<string> {
    if (Date.now() - this.#readAt > REFRESH_MS) {
      this.#readAt = Date.now();
      void this.refresh().catch(() => {
        this.#readAt = 0;
      });
    }
    return this.#blocked;
  }

  async refresh(): Promise<void> {
    const hosts = new Set<string>();
    for await (const entry of this.#kv.list(['blocked-host'])) {
      const host = entry.key[1];
      if (host) hosts.add(host);
    }
    this.#blocked = hosts;
    this.#readAt = Date.now();
  }

  /**
   * Blocks a server (and its subdomains): its activities are refused from now on, and what is
   * queued for it is dropped at once rather than when each delivery comes due.
   */
  async block(host: string): Promise<void> {
    const rule = checkHost(host);
    await this.#kv.setFor(['blocked-host', rule], { since: Date.now() }, null);
    await this.refresh();
    await this.#queue.dropDeliveries(rule, (target) => covers(rule, target));
  }

  async unblock(host: string): Promise<void> {
    await this.#kv.delete(['blocked-host', checkHost(host)]);
    await this.refresh();
  }

  /** Every server that follows, starred, sent or is sent something here, or is blocked. */
  async list(): Promise<KnownInstance[]> {
    await this.refresh();
    const [followers, stars, seen, queued] = await Promise.all([
      this.#followers.countByHost(),
      this.#stars.countByHost(),
      this.#seenByHost(),
      this.#queue.deliveries(),
    ]);
    const hosts = new Set([
      ...followers.keys(),
      ...stars.keys(),
      ...seen.keys(),
      ...queued.map((delivery) => delivery.host),
      ...this.#blocked,
    ]);
    const count = (counts: ReadonlyMap<string, number>, host: string) => counts.get(host) ?? 0;
    return Promise.all(
      [...hosts].sort().map(async (host) => {
        const failing = await this.#kv.get<number>(['host-failing', host]);
        const mine = queued.filter((delivery) => delivery.host === host);
        const last = seen.get(host)?.last;
        return {
          host,
          followers: count(followers, host),
          stars: count(stars, host),
          actorsSeen: seen.get(host)?.actors ?? 0,
          lastActivity: last === undefined ? undefined : new Date(last),
          blocked: this.#blocked.has(host),
          failingSince: failing === undefined ? undefined : new Date(failing),
          pending: mine.length,
          retrying: mine.filter((delivery) => delivery.attempts > 0).length,
          failed: (await this.#kv.get<number>(['deliveries-failed', host])) ?? 0,
        };
      }),
    );
  }

  async #seenByHost(): Promise<Map<string, { actors: number; last: number }>> {
    const byHost = new Map<string, { actors: number; last: number }>();
    for await (const entry of this.#kv.list(['actor-seen'])) {
      const host = entry.key[1];
      if (!host) continue;
      const at = Number(entry.value);
      const known = byHost.get(host) ?? { actors: 0, last: 0 };
      byHost.set(host, { actors: known.actors + 1, last: Math.max(known.last, at) });
    }
    return byHost;
  }
}

function checkHost(host: string): string {
  const lower = host.trim().toLowerCase();
  if (!HOST.test(lower)) throw new Invalid(`"${host}" is not a host name`);
  return lower;
}
