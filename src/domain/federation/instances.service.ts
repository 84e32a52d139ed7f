import { Invalid } from '../errors.ts';
import type { FollowersStore } from './followers.store.ts';
import type { KyselyKvStore } from './kv.store.ts';
import type { RemoteStarsStore } from './remote-stars.store.ts';

/** One other server as an administrator sees it. */
export type KnownInstance = {
  readonly host: string;
  readonly followers: number;
  readonly stars: number;
  readonly blocked: boolean;
  /** When deliveries to it started failing, if they are failing now. */
  readonly failingSince: Date | undefined;
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
  #blocked: ReadonlySet<string> = new Set();
  #readAt = 0;

  constructor(deps: {
    readonly kv: KyselyKvStore;
    readonly followers: Pick<FollowersStore, 'countByHost'>;
    readonly stars: Pick<RemoteStarsStore, 'countByHost'>;
  }) {
    this.#kv = deps.kv;
    this.#followers = deps.followers;
    this.#stars = deps.stars;
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

  async block(host: string): Promise<void> {
    await this.#kv.setFor(['blocked-host', checkHost(host)], { since: Date.now() }, null);
    await this.refresh();
  }

  async unblock(host: string): Promise<void> {
    await this.#kv.delete(['blocked-host', checkHost(host)]);
    await this.refresh();
  }

  /** Every server that follows or starred something here, or is blocked, by host. */
  async list(): Promise<KnownInstance[]> {
    await this.refresh();
    const [followers, stars] = await Promise.all([
      this.#followers.countByHost(),
      this.#stars.countByHost(),
    ]);
    const hosts = new Set([...followers.keys(), ...stars.keys(), ...this.#blocked]);
    const count = (counts: ReadonlyMap<string, number>, host: string) => counts.get(host) ?? 0;
    return Promise.all(
      [...hosts].sort().map(async (host) => {
        const failing = await this.#kv.get<number>(['host-failing', host]);
        return {
          host,
          followers: count(followers, host),
          stars: count(stars, host),
          blocked: this.#blocked.has(host),
          failingSince: failing === undefined ? undefined : new Date(failing),
        };
      }),
    );
  }
}

function checkHost(host: string): string {
  const lower = host.trim().toLowerCase();
  if (!HOST.test(lower)) throw new Invalid(`"${host}" is not a host name`);
  return lower;
}
