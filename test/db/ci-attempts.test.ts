/**
 * Migration 0033 on the configured engine: a run re-run before runs counted their attempts
 * starts from the highest attempt of its jobs; a run never re-run, or whose jobs never ran, is
 * attempt 1. Annotations then have a table to go to.
 */
import { describe, expect, it } from 'vitest';
import { type Database, migrate } from '../../src/db/database.ts';
import { insertJob, insertRun } from '../support/ci-rows.ts';
import {
  insertOwner,
  insertRepos,
  migrateBefore,
  useScratchDatabase,
} from '../support/migrate-before.ts';

let database: Database;
useScratchDatabase('kiln-ci-attempts-', (opened) => {
  database = opened;
});

/** Per run, its jobs' attempts as stored before, and the run's attempt after. */
const RUNS = [
  { jobs: [1, 3, 2], attempt: 3 },
  { jobs: [1], attempt: 1 },
  { jobs: [0, 0], attempt: 1 },
  { jobs: [], attempt: 1 },
] as const;

describe('runs stored before migration 0033', () => {
  it('take the highest attempt of their jobs', async () => {
    await migrateBefore(database, '0033-ci-attempts-annotations');
    const owner = await insertOwner(database, 'ada');
    const [repo = ''] = await insertRepos(database, owner, ['ci']);
    for (const [index, run] of RUNS.entries()) {
      const runId = await insertRun(database.db, {
        repoId: repo,
        number: index + 1,
        status: 'SUCCESS',
        triggeredBy: owner,
        at: index,
      });
      for (const attempt of run.jobs) {
        await insertJob(database.db, runId, { status: 'success', attempt, at: index });
      }
    }

    await migrate(database);

    const rows = await database.db
      .selectFrom('workflow_runs')
      .select(['attempt'])
      .orderBy('number')
      .execute();
    expect(rows.map((row) => Number(row.attempt))).toEqual(RUNS.map((run) => run.attempt));
    const none = await database.db.selectFrom('ci_annotations').selectAll().execute();
    expect(none).toEqual([]);
  });
});
