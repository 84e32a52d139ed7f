import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, migrate, openDatabase } from '../../src/db/database.ts';
import { federationDb } from '../../src/domain/federation/federation.tables.ts';
import { KyselyKvStore } from '../../src/domain/federation/kv.store.ts';
import { KyselyMessageQueue } from '../../src/domain/federation/message-queue.ts';
import { QueueStore } from '../../src/domain/federation/queue.store.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/**
 * The delivery queue and key-value store on the real engine (SQLite, or PostgreSQL under
 * scripts/with-postgres.sh), with two connections standing in for two replicas.
 */
describe('federation queue and key-value store', () => {
  let testDb: TestDatabase;
  let dataDir: string;
  let one: Database;
  let two: Database;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'kiln-queue-'));
    one = await openDatabase({ databaseUrl: testDb.url, dataDir });
    await migrate(one);
    two = await openDatabase({ databaseUrl: testDb.url, dataDir });
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await testDb?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs each message exactly once with two replicas listening', async () => {
    const queues = [one, two].map(
      (database) =>
        new KyselyMessageQueue(new QueueStore(federationDb(database.db)), { pollIntervalMs: 20 }),
    );
    const seen: number[] = [];
    const total = 60;
    const controller = new AbortController();
    const listening = queues.map((queue) =>
      queue.listen(
        async (message) => {
          seen.push((message as { n: number }).n);
        },
        { signal: controller.signal },
      ),
    );
    await queues[0]?.enqueueMany(Array.from({ length: total / 2 }, (_, n) => ({ n })));
    await queues[1]?.enqueueMany(
      Array.from({ length: total / 2 }, (_, n) => ({ n: n + total / 2 })),
    );
    const deadline = Date.now() + 20_000;
    while (seen.length < total && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 100));
    controller.abort();
    await Promise.all(listening);
    expect([...seen].sort((x, y) => x - y)).toEqual(Array.from({ length: total }, (_, n) => n));
  });

  it('hands a failed message back later instead of losing it', async () => {
    const queue = new KyselyMessageQueue(new QueueStore(federationDb(one.db)), {
      pollIntervalMs: 10,
      backoffMs: 50,
    });
    let attempts = 0;
    const controller = new AbortController();
    const listening = queue.listen(
      async () => {
        attempts += 1;
        if (attempts < 3) throw new Error('remote down');
        controller.abort();
      },
      { signal: controller.signal },
    );
    await queue.enqueue({ flaky: true });
    await listening;
    expect(attempts).toBe(3);
    expect((await queue.getDepth()).queued).toBe(0);
  });

  it('a claim is won by one replica only', async () => {
    const [a, b] = [one, two].map(
      (database) => new KyselyMessageQueue(new QueueStore(federationDb(database.db))),
    );
    await a?.enqueue({ solo: true });
    const claims = await Promise.all([a?.claim(), b?.claim(), a?.claim(), b?.claim()]);
    expect(claims.filter((claim) => claim !== undefined)).toHaveLength(1);
  });

  it('the key-value store lists by prefix exactly, whatever the keys hold', async () => {
    const kv = new KyselyKvStore(federationDb(one.db));
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.string({ unit: 'binary', minLength: 1, maxLength: 8 }), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.string({ unit: 'binary', maxLength: 8 }),
        async (names, prefix) => {
          const scope = `p${Math.random()}`;
          for (const name of names) await kv.set([scope, prefix, name], name);
          await kv.set([scope, `${prefix}x`, 'other'], 'other');
          const listed: string[] = [];
          for await (const entry of kv.list([scope, prefix])) listed.push(entry.value as string);
          expect(listed.sort()).toEqual([...names].sort());
          for (const name of names) expect(await kv.get([scope, prefix, name])).toBe(name);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('the key-value store reads many keys at once, in their order, absent and expired ones empty', async () => {
    const kv = new KyselyKvStore(federationDb(one.db));
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.string({ unit: 'binary', maxLength: 8 }), { maxLength: 8 }),
        fc.array(fc.constantFrom('kept', 'absent', 'expired'), { minLength: 8, maxLength: 8 }),
        async (names, fates) => {
          const scope = `m${Math.random()}`;
          const expected: (string | undefined)[] = [];
          for (const [at, name] of names.entries()) {
            const fate = fates[at];
            if (fate === 'kept') await kv.setFor([scope, name], name, null);
            if (fate === 'expired') await kv.setFor([scope, name], name, -1);
            expected.push(fate === 'kept' ? name : undefined);
          }
          const keys = names.map((name): [string, string] => [scope, name]);
          expect(await kv.getMany<string>([...keys].reverse())).toEqual([...expected].reverse());
        },
      ),
      { numRuns: 25 },
    );
    expect(await kv.getMany([])).toEqual([]);
  });

  it('compare-and-swap lets one writer win', async () => {
    const kv = new KyselyKvStore(federationDb(one.db));
    const other = new KyselyKvStore(federationDb(two.db));
    const results = await Promise.all([
      kv.cas(['cas'], undefined, 1),
      other.cas(['cas'], undefined, 2),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await kv.cas(['cas'], 99, 3)).toBe(false);
    const current = await kv.get<number>(['cas']);
    expect(await other.cas(['cas'], current, 4)).toBe(true);
    expect(await kv.get(['cas'])).toBe(4);
  });
});
