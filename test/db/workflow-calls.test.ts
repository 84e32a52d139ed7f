/**
 * Migration 0032 on the configured engine: a job that was running when it ran keeps the task
 * token it had — `write-all` on its repository, read for a pull from a fork — and a run made
 * before it has no workflow calls.
 */
import { describe, expect, it } from 'vitest';
import { type Database, migrate } from '../../src/db/database.ts';
import { TaskTokenStore } from '../../src/domain/ci/task-token.store.ts';
import { CiTaskTokens } from '../../src/domain/ci/task-token.ts';
import { sha256Hex } from '../../src/lib/crypto.ts';
import {
  insertJob,
  insertOwner,
  insertRepos,
  migrateBefore,
  useScratchDatabase,
} from '../support/migrate-before.ts';

let database: Database;
useScratchDatabase('kiln-workflow-calls-', (opened) => {
  database = opened;
});

describe('jobs running across migration 0032', () => {
  it('keep the token they had, and their runs have no calls', async () => {
    await migrateBefore(database, '0032-ci-workflow-calls');
    const owner = await insertOwner(database, 'ada');
    const [repo = ''] = await insertRepos(database, owner, ['ci']);
    const tokens = ['a'.repeat(40), 'b'.repeat(40)];
    for (const [index, fork] of [false, true].entries()) {
      const runId = `run-${index}`;
      await database.db
        .insertInto('workflow_runs')
        .values({
          id: runId,
          repo_id: repo,
          number: index + 1,
          workflow_name: 'ci',
          workflow_file: 'ci.yml',
          event: fork ? 'pull_request' : 'push',
          ref: 'refs/heads/main',
          sha: 'b'.repeat(40),
          // No actor bound is asked for below: the grant is the job's own.
          triggered_by: null,
          status: 'RUNNING',
          fork_pull: fork,
          created_at: index,
          started_at: index,
          stopped_at: null,
          updated_at: index,
          error: null,
          concurrency_group: null,
        })
        .execute();
      await insertJob(database, runId, {
        status: 'running',
        at: index,
        tokenHash: sha256Hex(tokens[index] ?? ''),
      });
    }

    await migrate(database);

    const runs = await database.db.selectFrom('workflow_runs').select('calls').execute();
    expect(runs.map((run) => run.calls)).toEqual(['{}', '{}']);
    const taskTokens = new CiTaskTokens(new TaskTokenStore(database.db));
    const push = await taskTokens.authenticate(tokens[0] ?? '');
    expect(push).toMatchObject({ repoId: repo, level: 'write' });
    expect(Object.fromEntries(push?.scopes ?? [])).toEqual({ repository: 'write', issue: 'write' });
    const fork = await taskTokens.authenticate(tokens[1] ?? '');
    expect(fork).toMatchObject({ repoId: repo, level: 'read' });
    expect(Object.fromEntries(fork?.scopes ?? [])).toEqual({ repository: 'read', issue: 'read' });
  });
});
