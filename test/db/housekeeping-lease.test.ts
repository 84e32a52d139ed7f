/**
 * The housekeeping lease of migration 0009 on the configured engine (SQLite, or the PostgreSQL
 * that KILN_TEST_DATABASE_URL names): of many holders claiming one repository at once exactly
 * one gets it; nobody else gets it until it is released by its holder or has expired; the last
 * full repack it records comes back with the next claim.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, migrate, openDatabase } from '../../src/db/database.ts';
import { HousekeepingStore } from '../../src/domain/repos/housekeeping.store.ts';
import { newId } from '../../src/lib/ids.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const LEASE_MS = 60_000;

let dataDir: string;
let testDatabase: TestDatabase;
let database: Database;
let store: HousekeepingStore;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'kiln-lease-'));
  testDatabase = await createTestDatabase();
  database = await openDatabase({ databaseUrl: testDatabase.url, dataDir });
  await migrate(database);
  store = new HousekeepingStore(database.db);
});
afterAll(async () => {
  await database?.close();
  await testDatabase?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('housekeeping lease', () => {
  it('goes to exactly one of many holders claiming at once', async () => {
    const repo = newId();
    const now = Date.now();
    const holders = Array.from({ length: 12 }, (_, i) => `holder-${i}`);
    const claims = await Promise.all(holders.map((h) => store.claim(repo, h, now, LEASE_MS)));
    expect(claims.filter((claim) => claim !== undefined)).toHaveLength(1);
  });

  it('stays taken until released by its holder or expired, and remembers the full repack', async () => {
    const repo = newId();
    const now = Date.now();
    expect(await store.claim(repo, 'a', now, LEASE_MS)).toEqual({ lastFullAt: 0 });
    expect(await store.claim(repo, 'a', now + 1, LEASE_MS)).toBeUndefined();
    await store.release(repo, 'b', now);
    expect(await store.claim(repo, 'b', now + 2, LEASE_MS)).toBeUndefined();
    await store.release(repo, 'a', now + 3);
    expect(await store.claim(repo, 'b', now + 4, LEASE_MS)).toEqual({ lastFullAt: now + 3 });
    expect(await store.claim(repo, 'c', now + 4 + LEASE_MS - 1, LEASE_MS)).toBeUndefined();
    expect(await store.claim(repo, 'c', now + 4 + LEASE_MS, LEASE_MS)).toEqual({
      lastFullAt: now + 3,
    });
  });

  it('never has two holders at once, whatever the order of claims, releases and time', async () => {
    type Step = { holder: number; release: boolean; advanceMs: number };
    const step = fc.record({
      holder: fc.integer({ min: 0, max: 2 }),
      release: fc.boolean(),
      advanceMs: fc.integer({ min: 0, max: LEASE_MS / 2 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 20 }), async (steps: Step[]) => {
        const repo = newId();
        let now = Date.now();
        // The model: who holds the lease and until when.
        let held: { holder: number; until: number } | undefined;
        for (const { holder, release, advanceMs } of steps) {
          now += advanceMs;
          if (held && held.until <= now) held = undefined;
          if (release) {
            await store.release(repo, `h${holder}`, undefined);
            if (held?.holder === holder) held = undefined;
            continue;
          }
          const claim = await store.claim(repo, `h${holder}`, now, LEASE_MS);
          expect(claim !== undefined).toBe(held === undefined);
          if (claim) held = { holder, until: now + LEASE_MS };
        }
      }),
      { numRuns: 40 },
    );
  });
});
