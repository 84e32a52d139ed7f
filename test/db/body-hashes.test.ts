/**
 * Release notes and pull request bodies by the hash stored beside them (migration 0026), on the
 * configured engine (SQLite, or the PostgreSQL that KILN_TEST_DATABASE_URL names): bodies stored
 * before the migration are hashed by it, and two stores on one database (two processes) read
 * every body as it was last written, whatever each of them keeps in memory.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Database, migrate } from '../../src/db/database.ts';
import { PullStore } from '../../src/domain/pulls/pull.store.ts';
import { ReleaseStore } from '../../src/domain/releases/release.store.ts';
import { contentHash } from '../../src/lib/content-hash.ts';
import {
  insertOwner,
  insertRepos,
  migrateBefore,
  useScratchDatabase,
} from '../support/migrate-before.ts';

let database: Database;
let owner: string;
let repo: string;

/** Texts that differ in size by orders of magnitude, repeats and characters beyond ASCII. */
const TEXTS = ['', 'notes', 'Ünïcødé 🎉 notes', `# Big\n\n${'word '.repeat(60_000)}`, 'notes\n'];
/** More rows than the migration hashes in one batch. */
const OLD_ROWS = 130;

useScratchDatabase('kiln-body-hashes-', (opened) => {
  database = opened;
});

/** Rows as an installation made before the hashes holds them: no `body_hash` column yet. */
async function insertOldRows(): Promise<void> {
  const text = (n: number) => TEXTS[n % TEXTS.length] ?? '';
  for (let n = 0; n < OLD_ROWS; n++) {
    const common = { repo_id: repo, body: text(n), created_at: n, updated_at: n };
    await database.db
      .insertInto('releases')
      .values({
        ...common,
        id: `r${String(n).padStart(4, '0')}`,
        tag_name: `v${n}`,
        target_commitish: 'main',
        name: '',
        prerelease: false,
        author_id: owner,
      } as never)
      .execute();
    await database.db
      .insertInto('pull_requests')
      .values({
        ...common,
        id: `p${String(n).padStart(4, '0')}`,
        number: n + 1,
        title: `pull ${n}`,
        state: 'open',
        merged: false,
        merged_at: null,
        merge_commit_sha: null,
        merged_by_id: null,
        author_id: owner,
        assignee_id: null,
        head_repo_id: repo,
        head_branch: `topic-${n}`,
        head_sha: 'a'.repeat(40),
        base_branch: 'main',
        closed_at: null,
      } as never)
      .execute();
  }
}

describe('body hashes', () => {
  it('are written by the migration for every body stored before it, on a rerun too', async () => {
    await migrateBefore(database, '0026-body-hashes');
    owner = await insertOwner(database, 'ada');
    [repo = ''] = await insertRepos(database, owner, ['notes']);
    await insertOldRows();
    // A start stopped while hashing (SQLite migrates outside a transaction) left one column.
    await database.db.schema
      .alterTable('releases')
      .addColumn('body_hash', 'text', (column) => column.notNull().defaultTo(''))
      .execute();

    await migrate(database);

    for (const table of ['releases', 'pull_requests'] as const) {
      const rows = await database.db.selectFrom(table).select(['body', 'body_hash']).execute();
      expect(rows).toHaveLength(OLD_ROWS);
      for (const row of rows) expect(row.body_hash).toBe(contentHash(row.body));
    }
  });

  it('keep two stores on one database reading every body as last written', async () => {
    const releases = [new ReleaseStore(database.db), new ReleaseStore(database.db)];
    const pulls = [new PullStore(database.db), new PullStore(database.db)];
    const written = {
      releases: new Map<string, string>(),
      pulls: new Map<number, string>(),
    };
    const rows = await database.db.selectFrom('releases').select(['id', 'body']).execute();
    for (const row of rows) written.releases.set(row.id, row.body);
    const pullRows = await database.db
      .selectFrom('pull_requests')
      .select(['number', 'body'])
      .execute();
    for (const row of pullRows) written.pulls.set(Number(row.number), row.body);
    const pullIds = new Map(
      (await database.db.selectFrom('pull_requests').select(['id', 'number']).execute()).map(
        (row) => [Number(row.number), row.id],
      ),
    );

    const step = fc.record({
      store: fc.integer({ min: 0, max: 1 }),
      row: fc.integer({ min: 0, max: 4 }),
      text: fc.integer({ min: 0, max: TEXTS.length - 1 }),
      write: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
        for (const { store, row, text, write } of steps) {
          const releaseId = `r${String(row).padStart(4, '0')}`;
          const number = row + 1;
          const releaseStore = releases[store] as ReleaseStore;
          const pullStore = pulls[store] as PullStore;
          if (write) {
            const body = TEXTS[text] ?? '';
            await releaseStore.update(releaseId, { body });
            await pullStore.update(pullIds.get(number) ?? '', { body });
            written.releases.set(releaseId, body);
            written.pulls.set(number, body);
            continue;
          }
          expect((await releaseStore.findById(repo, releaseId))?.body).toBe(
            written.releases.get(releaseId),
          );
          const page = await releaseStore.list(repo, { limit: 200, offset: 0 });
          for (const release of page.items) {
            expect(release.body).toBe(written.releases.get(release.id));
          }
          expect((await pullStore.findByNumber(repo, number))?.body).toBe(
            written.pulls.get(number),
          );
        }
      }),
      { numRuns: 15 },
    );
  });
});
