/**
 * Migration 0025 on the configured engine: concurrency groups stored before it are lower-cased
 * by JavaScript's rule, as new ones are, so a run queued under `Deploy` meets the new runs of
 * `deploy`; rows without a group keep none.
 */
import { describe, expect, it } from 'vitest';
import { type Database, migrate } from '../../src/db/database.ts';
import { insertRunWithJob } from '../support/ci-rows.ts';
import {
  insertOwner,
  insertRepos,
  migrateBefore,
  useScratchDatabase,
} from '../support/migrate-before.ts';

let database: Database;
useScratchDatabase('kiln-groups-', (opened) => {
  database = opened;
});

/** Groups as written before: cases, characters beyond ASCII whose lower case differs by engine. */
const GROUPS = ['Deploy', 'deploy', 'ÄRGER-Über', 'İstanbul', 'MIXED-ß-Σ', null];

describe('concurrency groups stored before migration 0025', () => {
  it('are lower-cased by the rule new groups follow', async () => {
    await migrateBefore(database, '0025-concurrency-groups-lower-case');
    const owner = await insertOwner(database, 'ada');
    const [repo = ''] = await insertRepos(database, owner, ['ci']);
    for (const [index, group] of GROUPS.entries()) {
      await insertRunWithJob(
        database.db,
        {
          repoId: repo,
          number: index + 1,
          status: 'BLOCKED',
          workflowFile: '.forgejo/workflows/ci.yml',
          triggeredBy: owner,
          concurrencyGroup: group,
          at: index,
        },
        { status: 'blocked', concurrencyGroup: group, at: index },
      );
    }

    await migrate(database);

    const expected = GROUPS.map((group) => group?.toLowerCase() ?? null);
    const runs = await database.db
      .selectFrom('workflow_runs')
      .select('concurrency_group')
      .orderBy('number')
      .execute();
    expect(runs.map((run) => run.concurrency_group)).toEqual(expected);
    const tasks = await database.db
      .selectFrom('ci_tasks')
      .select('concurrency_group')
      .orderBy('created_at')
      .execute();
    expect(tasks.map((task) => task.concurrency_group)).toEqual(expected);
  });
});
