/**
 * Migration 0027 on the configured engine: runs of pull requests from forks that were queued
 * before approval existed are made to wait for it (none of their jobs is offered to a runner),
 * and every run of a pull request learns which pull it belongs to; finished runs, runs of the
 * base's own branches and pushes are left as they were.
 */
import { describe, expect, it } from 'vitest';
import { type Database, migrate } from '../../src/db/database.ts';
import { CiStores } from '../../src/domain/ci/ci-stores.ts';
import {
  insertJob,
  insertOwner,
  insertRepos,
  migrateBefore,
  useScratchDatabase,
} from '../support/migrate-before.ts';

let database: Database;
useScratchDatabase('kiln-fork-approval-', (opened) => {
  database = opened;
});

/** The runs stored before: what each is, and what the migration must make of it. */
const RUNS = [
  { event: 'pull_request', ref: 'refs/pull/1/head', fork: true, status: 'PENDING', waits: true },
  { event: 'pull_request', ref: 'refs/pull/1/head', fork: true, status: 'RUNNING', waits: true },
  { event: 'pull_request', ref: 'refs/pull/1/head', fork: true, status: 'SUCCESS', waits: false },
  { event: 'pull_request', ref: 'refs/pull/2/head', fork: false, status: 'PENDING', waits: false },
  { event: 'push', ref: 'refs/heads/main', fork: false, status: 'PENDING', waits: false },
] as const;

describe('runs stored before migration 0027', () => {
  it('wait for approval when they are unfinished runs of a pull from a fork', async () => {
    await migrateBefore(database, '0027-fork-pull-approval');
    const owner = await insertOwner(database, 'ada');
    const stranger = await insertOwner(database, 'mallory');
    const [base = ''] = await insertRepos(database, owner, ['ci']);
    const [fork = ''] = await insertRepos(database, stranger, ['ci']);
    const pulls = [
      { id: 'pull-1', number: 1, head: fork, author: stranger },
      { id: 'pull-2', number: 2, head: base, author: owner },
    ];
    for (const pull of pulls) {
      await database.db
        .insertInto('pull_requests')
        .values({
          id: pull.id,
          repo_id: base,
          number: pull.number,
          title: 't',
          body: '',
          body_hash: '',
          state: 'open',
          merged: false,
          merged_at: null,
          merge_commit_sha: null,
          merged_by_id: null,
          author_id: pull.author,
          assignee_id: null,
          head_repo_id: pull.head,
          head_branch: 'patch',
          head_sha: 'b'.repeat(40),
          base_branch: 'main',
          created_at: 0,
          updated_at: 0,
          closed_at: null,
        })
        .execute();
    }
    for (const [index, run] of RUNS.entries()) {
      const runId = `run-${index}`;
      await database.db
        .insertInto('workflow_runs')
        .values({
          id: runId,
          repo_id: base,
          number: index + 1,
          workflow_name: 'ci',
          workflow_file: 'ci.yml',
          event: run.event,
          ref: run.ref,
          sha: 'b'.repeat(40),
          triggered_by: run.fork ? stranger : owner,
          status: run.status,
          fork_pull: run.fork,
          created_at: index,
          started_at: null,
          stopped_at: null,
          updated_at: index,
          error: null,
          concurrency_group: null,
        })
        .execute();
      await insertJob(database, runId, {
        status: run.status === 'SUCCESS' ? 'success' : 'pending',
        at: index,
      });
    }

    await migrate(database);

    const rows = await database.db
      .selectFrom('workflow_runs')
      .select(['id', 'pull_id', 'needs_approval', 'approved_at'])
      .orderBy('number')
      .execute();
    expect(rows.map((row) => Boolean(row.needs_approval))).toEqual(RUNS.map((run) => run.waits));
    expect(rows.map((row) => row.pull_id)).toEqual(['pull-1', 'pull-1', 'pull-1', 'pull-2', null]);
    expect(rows.every((row) => row.approved_at === null)).toBe(true);
    // Whatever the jobs' statuses say, a runner is offered none of a run that waits.
    const offered = await new CiStores(database.db).tasks.listCandidates({ kind: 'instance' }, 10);
    const runOf = new Map(
      (await database.db.selectFrom('ci_tasks').select(['id', 'run_id']).execute()).map((task) => [
        task.id,
        task.run_id,
      ]),
    );
    expect(offered.map((task) => runOf.get(task.id)).sort()).toEqual(['run-3', 'run-4']);
  });
});
