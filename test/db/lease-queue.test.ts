/**
 * The one lease queue (src/db/lease-queue.ts) on the configured engine (SQLite, or the
 * PostgreSQL that KILN_TEST_DATABASE_URL names), over a table of its own and with two
 * connections standing in for two replicas: claimers racing for the same rows never both get
 * one, a lease that ran out is claimed again, and a release counts only from the holder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, migrate, openDatabase } from '../../src/db/database.ts';
import { LeaseQueue } from '../../src/db/lease-queue.ts';
import type { Dialect } from '../../src/db/migration.ts';
import { newId } from '../../src/lib/ids.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

type Probe = {
  lease_probe: {
    id: string;
    state: string;
    due_at: number;
    lease_until: number | null;
    attempts: number;
    holder: string | null;
  };
};

const LEASE_MS = 60_000;

let dataDir: string;
let testDb: TestDatabase;
let one: Database;
let two: Database;
const dialect: Dialect = process.env.KILN_TEST_DATABASE_URL ? 'postgres' : 'sqlite';

/** A queue over the probe table on `database`: rows in state `queued` are the work. */
function queueOn(database: Database) {
  return new LeaseQueue(
    database.db.withTables<Probe>(),
    {
      table: 'lease_probe',
      key: 'id',
      lease: 'lease_until',
      freeLease: null,
      due: 'due_at',
      attempts: 'attempts',
      claimable: (eb) => eb('state', '=', 'queued'),
    },
    dialect,
  );
}

async function addRows(count: number, dueAt: number, state = 'queued'): Promise<string[]> {
  const rows = Array.from({ length: count }, () => ({
    id: newId(),
    state,
    due_at: dueAt,
    lease_until: null,
    attempts: 0,
    holder: null,
  }));
  await one.db.withTables<Probe>().insertInto('lease_probe').values(rows).execute();
  return rows.map((row) => row.id);
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'kiln-lease-queue-'));
  testDb = await createTestDatabase();
  one = await openDatabase({ databaseUrl: testDb.url, dataDir });
  await migrate(one);
  two = await openDatabase({ databaseUrl: testDb.url, dataDir });
  await sql`create table lease_probe (id text primary key, state text not null,
    due_at bigint not null, lease_until bigint, attempts integer not null, holder text)`.execute(
    one.db,
  );
});
afterAll(async () => {
  await one?.close();
  await two?.close();
  await testDb?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('lease queue', () => {
  it('never hands one row to two claimers racing on two connections', async () => {
    // Far in the past, so no row another test adds is due before these.
    const now = 1_000;
    const ids = await addRows(400, now - 1);
    const queues = [queueOn(one), queueOn(two)];
    const won: string[] = [];
    await Promise.all(
      Array.from({ length: 12 }, async (_, claimer) => {
        const queue = queues[claimer % 2];
        for (;;) {
          const rows = await queue?.claimDue(2, { now, leaseMs: LEASE_MS, returning: ['id'] });
          if (!rows || rows.length === 0) return;
          won.push(...rows.map((row) => row.id).filter((id) => ids.includes(id)));
        }
      }),
    );
    expect(won.toSorted()).toEqual(ids.toSorted());
  });

  it('gives a named row to exactly one of many claimers, creating it on first claim', async () => {
    const key = newId();
    const now = Date.now();
    const queues = [queueOn(one), queueOn(two)];
    const claims = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        queues[i % 2]?.claimKey(key, {
          now,
          leaseMs: LEASE_MS,
          set: { holder: `h${i}` },
          create: { state: 'queued', due_at: now, attempts: 0 },
          returning: ['holder'],
        }),
      ),
    );
    expect(claims.filter((claim) => claim !== undefined)).toHaveLength(1);
  });

  it('claims a row again once its lease has run out, counting the attempts', async () => {
    const now = Date.now() + 10 * LEASE_MS;
    const [id] = await addRows(1, now);
    const queue = queueOn(one);
    const claim = (at: number) =>
      queue.claimKey(id ?? '', { now: at, leaseMs: LEASE_MS, returning: ['attempts'] });
    expect(Number((await claim(now))?.attempts)).toBe(1);
    expect(await claim(now + LEASE_MS - 1)).toBeUndefined();
    expect(Number((await claim(now + LEASE_MS))?.attempts)).toBe(2);
  });

  it('claims only rows that are due and claimable', async () => {
    const now = Date.now() + 100 * LEASE_MS;
    const [later] = await addRows(1, now + 1);
    const [done] = await addRows(1, now - 1, 'done');
    const queue = queueOn(one);
    const claimed = (await queue.claimDue(100, { now, leaseMs: 1, returning: ['id'] })).map(
      (row) => row.id,
    );
    expect(claimed).not.toContain(later);
    expect(claimed).not.toContain(done);
    expect(await queue.claimKey(done ?? '', { now, leaseMs: 1 })).toBeUndefined();
  });

  it('frees a row only for its holder, whatever the order of claims, releases and time', async () => {
    type Step = { holder: number; release: boolean; advanceMs: number };
    const step = fc.record({
      holder: fc.integer({ min: 0, max: 2 }),
      release: fc.boolean(),
      advanceMs: fc.integer({ min: 0, max: LEASE_MS / 2 }),
    });
    const queue = queueOn(two);
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 16 }), async (steps: Step[]) => {
        const key = newId();
        let now = Date.now();
        // The model: who holds the row and until when.
        let held: { holder: number; until: number } | undefined;
        for (const { holder, release, advanceMs } of steps) {
          now += advanceMs;
          if (held && held.until <= now) held = undefined;
          if (release) {
            const freed = await queue.release(key, {
              where: (eb) => eb('holder', '=', `h${holder}`),
            });
            const mine = held?.holder === holder;
            if (mine) held = undefined;
            if (mine) expect(freed).toBe(true);
            continue;
          }
          const claim = await queue.claimKey(key, {
            now,
            leaseMs: LEASE_MS,
            set: { holder: `h${holder}` },
            create: { state: 'queued', due_at: 0, attempts: 0 },
          });
          expect(claim !== undefined).toBe(held === undefined);
          if (claim) held = { holder, until: now + LEASE_MS };
        }
      }),
      { numRuns: 30 },
    );
  });
});
