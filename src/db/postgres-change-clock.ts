import type pg from 'pg';
import type { ChangeClock } from './change-clock.ts';

/**
 * The channel every committed write of a Kiln database is announced on, by the statement
 * triggers `ensureChangeNotices` installs (see change-notices.ts).
 */
export const CHANGES_CHANNEL = 'kiln_changes';

/** The `application_name` of the listening connection, as `pg_stat_activity` shows it. */
export const CHANGE_LISTENER_NAME = 'kiln change listener';

/** What the clock needs of a connection of its own: LISTEN, a liveness probe, and its end. */
export type ListenConnection = Pick<pg.Client, 'query' | 'on' | 'end'>;

export type PostgresChangeClockOptions = {
  /** Opens (and connects) the connection the clock listens on. */
  readonly connect: () => Promise<ListenConnection>;
  /**
   * How often the listening connection is probed. A connection that died without a word (a
   * dropped route, a firewall forgetting it) would otherwise leave this replica reusing reads
   * forever; a failed probe counts as a lost connection. Default 10 s.
   */
  readonly probeMs?: number;
  /** The first wait before reconnecting; doubles up to 30 s. Default 500 ms. */
  readonly retryMs?: number;
};

/**
 * The change clock of a PostgreSQL database shared by replicas. This process's own statements
 * tick it as they finish (`noteWrite`, called by the pool wrapper for every statement that is
 * not a plain SELECT, COMMIT included), so a writer reads its own writes at once. Other
 * replicas' commits arrive as notifications on `CHANGES_CHANNEL` and tick it when they do: a
 * replica may answer from what it read before another's commit for as long as the notification
 * takes to arrive (a few milliseconds on a healthy network).
 *
 * While the listening connection is not established (before the first LISTEN, after it is lost,
 * until it is back) the stamp is undefined, so nothing read may be reused and every read goes to
 * the database, as it did without a clock.
 */
export class PostgresChangeClock implements ChangeClock {
  readonly #options: PostgresChangeClockOptions;
  #stamp = 0;
  #listening = false;
  #connection: ListenConnection | undefined;
  #connecting = false;
  #closed = false;
  #retryMs: number;
  #probe: NodeJS.Timeout | undefined;
  #retry: NodeJS.Timeout | undefined;

  constructor(options: PostgresChangeClockOptions) {
    this.#options = options;
    this.#retryMs = options.retryMs ?? 500;
  }

  noteWrite(): void {
    this.#stamp += 1;
  }

  /** Undefined until this process listens; the first call starts listening. */
  stamp(): number | undefined {
    if (this.#listening) return this.#stamp;
    this.#listen();
    return undefined;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    this.#lost();
  }

  #listen(): void {
    if (this.#connecting || this.#closed || this.#retry) return;
    this.#connecting = true;
    void this.#open().finally(() => {
      this.#connecting = false;
    });
  }

  async #open(): Promise<void> {
    let connection: ListenConnection | undefined;
    const lost = () => {
      if (connection !== undefined && this.#connection === connection) this.#lost();
    };
    try {
      connection = await this.#options.connect();
      this.#connection = connection;
      connection.on('notification', () => this.noteWrite());
      // Only this connection's own end counts: an older one's late events change nothing.
      connection.on('error', lost);
      connection.on('end', lost);
      await connection.query(`listen ${CHANGES_CHANNEL}`);
      if (this.#closed || this.#connection !== connection) {
        this.#lost();
        return;
      }
      // Whatever was committed while nobody listened is unknown: start from a new stamp.
      this.#stamp += 1;
      this.#listening = true;
      this.#retryMs = this.#options.retryMs ?? 500;
      this.#probe = setInterval(() => {
        connection?.query('select 1').catch(lost);
      }, this.#options.probeMs ?? 10_000);
      this.#probe.unref();
    } catch {
      if (connection === undefined || this.#connection === connection) this.#lost();
    }
  }

  /** Stops reusing reads, drops the connection, and (unless closed) tries again later. */
  #lost(): void {
    this.#listening = false;
    this.#stamp += 1;
    clearInterval(this.#probe);
    this.#probe = undefined;
    const connection = this.#connection;
    this.#connection = undefined;
    connection?.end().catch(() => {});
    if (this.#closed || this.#retry) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      this.#listen();
    }, this.#retryMs);
    this.#retry.unref();
    this.#retryMs = Math.min(this.#retryMs * 2, 30_000);
  }
}
