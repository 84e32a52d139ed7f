/**
 * CI records on the engine the suite runs on (SQLite, or PostgreSQL under with-postgres.sh):
 * what deleting a repository removes, run numbering, the zombie sweep racing itself from two
 * database connections as two replicas would, ephemeral runners, and CI secrets and variables.
 */

import { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CiSecretService } from '../../src/domain/ci/ci-secret.service.ts';
import { CiSettingStore } from '../../src/domain/ci/ci-setting.store.ts';
import { deriveSecretKey, sealSecret } from '../../src/domain/ci/secret-box.ts';
import { createRun } from '../../src/domain/ci/workflow-run.store.ts';
import { Invalid, Unauthenticated } from '../../src/domain/errors.ts';
import { OPERATOR } from '../../src/domain/runners/runner.policy.ts';
import type { RunnerScope } from '../../src/domain/runners/runner.types.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { insertRepository } from './fixtures.ts';

const TASK_TIMEOUT_MS = 60 * 60_000;
let kiln: TestServer;

beforeAll(async () => {
  kiln = await startTestServer({ SERVICE_SECRET_KEY: 'test secret key for CI secrets' });
});
afterAll(async () => {
  await kiln?.close();
});

async function repository() {
  const { user } = await kiln.make.user();
  return { user, repo: await insertRepository(kiln, user) };
}

/** Registering again under a name replaces that runner, so each runner here has its own. */
let runnersMade = 0;

async function registeredRunner(options: { scope?: RunnerScope; ephemeral?: boolean } = {}) {
  const { runnerAdmin, runners } = kiln.app.services;
  const { token } = await runnerAdmin.createToken(OPERATOR, options.scope ?? { kind: 'instance' });
  const registered = await runners.register({
    token,
    name: `box-${++runnersMade}`,
    version: 'v1',
    labels: ['ubuntu-latest'],
    ephemeral: options.ephemeral ?? false,
    capabilities: [],
  });
  return { ...registered.runner, secret: registered.token };
}

function run(repoId: string, jobs: number) {
  return createRun(
    kiln.app.database.db,
    {
      repoId,
      workflowName: 'CI',
      workflowFile: 'ci.yml',
      event: 'push',
      ref: 'refs/heads/main',
      sha: 'a'.repeat(40),
      triggeredBy: null,
    },
    Array.from({ length: jobs }, (_, index) => ({
      name: `job ${index}`,
      jobKey: `job${index}`,
      runsOn: ['ubuntu-latest'],
    })),
  );
}

/** Starts a replica thread; `go` makes it sweep three times, `done` is how many it failed. */
function sweepReplica() {
  const worker = new Worker(new URL('./sweep-replica.worker.ts', import.meta.url), {
    workerData: { databaseUrl: kiln.app.config.databaseUrl, dataDir: kiln.app.dataDir, rounds: 3 },
  });
  const messages: unknown[] = [];
  const waiters: Array<(message: unknown) => void> = [];
  worker.on('message', (message: unknown) => {
    const waiter = waiters.shift();
    if (waiter) waiter(message);
    else messages.push(message);
  });
  const next = () =>
    new Promise<unknown>((resolve, reject) => {
      const queued = messages.shift();
      if (queued !== undefined) resolve(queued);
      else waiters.push(resolve);
      worker.once('error', reject);
    });
  const ready = next();
  return {
    ready,
    go: () => worker.postMessage('go'),
    done: ready.then(async () => {
      const reply = (await next()) as { failed?: number; error?: string };
      await worker.terminate();
      if (reply.error !== undefined) throw new Error(reply.error);
      return reply.failed ?? 0;
    }),
  };
}

/** Rows of `table` whose `column` is one of `values`. */
async function countWhere(table: string, column: string, values: readonly (string | number)[]) {
  const result = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(
    table,
  )} where ${sql.ref(column)} in (${sql.join(values)})`.execute(kiln.app.database.db);
  return Number(result.rows[0]?.n);
}

async function taskRow(id: number) {
  return kiln.app.database.db
    .selectFrom('ci_tasks')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
}

async function runnerStatus(id: string) {
  const all = await kiln.app.services.runnerAdmin.listRunners(OPERATOR, undefined);
  return all.find((runner) => runner.id === id)?.status;
}

describe('deleting a repository', () => {
  it('removes its runs, tasks, secrets, variables, tokens and runners', async () => {
    const { repo } = await repository();
    const { db } = kiln.app.database;
    const { tasks } = await run(repo.id, 2);
    const taskIds = tasks.map((task) => task.id);
    const access = { repoId: repo.id, isRepoAdmin: true };
    await kiln.app.services.ciSecrets.put(access, 'TOKEN', 'value');
    await kiln.app.services.ciVariables.put(access, 'REGION', 'eu');
    const runner = await registeredRunner({ scope: { kind: 'repository', repoId: repo.id } });

    await db.deleteFrom('repositories').where('id', '=', repo.id).execute();

    const counts = {
      runs: await countWhere('workflow_runs', 'repo_id', [repo.id]),
      tasks: await countWhere('ci_tasks', 'id', taskIds),
      secrets: await countWhere('ci_secrets', 'repo_id', [repo.id]),
      variables: await countWhere('ci_variables', 'repo_id', [repo.id]),
      tokens: await countWhere('runner_registration_tokens', 'scope_repo_id', [repo.id]),
      runners: await countWhere('runners', 'scope_repo_id', [repo.id]),
    };
    expect(counts).toEqual({
      runs: 0,
      tasks: 0,
      secrets: 0,
      variables: 0,
      tokens: 0,
      runners: 0,
    });
    await expect(
      kiln.app.services.runners.authenticate(runner.uuid, runner.secret),
    ).rejects.toBeInstanceOf(Unauthenticated);
  });
});

describe('the database', () => {
  it('has no log rows table: logs live in files', async () => {
    await expect(
      sql`select count(*) from ci_log_rows`.execute(kiln.app.database.db),
    ).rejects.toThrow(/ci_log_rows/);
  });
});

describe('workflow runs', () => {
  it('numbers runs per repository from 1, without gaps under concurrent creation', async () => {
    const { repo } = await repository();
    const { repo: other } = await repository();
    const runs = await Promise.all([1, 2, 3, 4, 5].map(() => run(repo.id, 1)));
    expect(runs.map((created) => created.run.number).sort()).toEqual([1, 2, 3, 4, 5]);
    expect((await run(other.id, 0)).run.number).toBe(1);
  });

  it('gives tasks increasing int64 ids', async () => {
    const { repo } = await repository();
    const { tasks } = await run(repo.id, 3);
    const ids = tasks.map((task) => task.id);
    expect(ids.every((id) => Number.isSafeInteger(id) && id > 0)).toBe(true);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(new Set(ids).size).toBe(3);
  });
});

describe('claiming and the zombie sweep', () => {
  it('sets the deadline from the task timeout when a task is claimed', async () => {
    const { repo } = await repository();
    const runner = await registeredRunner();
    const { tasks, run: created } = await run(repo.id, 1);
    const now = Date.now();
    const claimed = await kiln.app.services.ciTasks.claimTask(tasks[0]?.id ?? 0, runner.id, now);
    expect(claimed?.status).toBe('running');
    expect(claimed?.runnerId).toBe(runner.id);
    expect(claimed?.deadlineAt?.getTime()).toBe(now + TASK_TIMEOUT_MS);
    expect(await runnerStatus(runner.id)).toBe('active');
    const runRow = await kiln.app.database.db
      .selectFrom('workflow_runs')
      .select('status')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(runRow.status).toBe('RUNNING');
    // A claimed task cannot be claimed again.
    const other = await registeredRunner();
    expect(await kiln.app.services.ciTasks.claimTask(tasks[0]?.id ?? 0, other.id)).toBeUndefined();
  });

  it('fails each expired task exactly once when two replicas sweep at the same time', async () => {
    const { repo } = await repository();
    const stale = await registeredRunner();
    const live = await registeredRunner();
    const { tasks } = await run(repo.id, 4);
    const [a, b, c, d] = tasks.map((task) => task.id) as [number, number, number, number];
    const { ciTasks } = kiln.app.services;
    const longAgo = Date.now() - TASK_TIMEOUT_MS - 60_000;
    await ciTasks.claimTask(a, stale.id, longAgo);
    await ciTasks.claimTask(b, stale.id, longAgo);
    await ciTasks.claimTask(c, live.id);
    // d stays pending: no deadline, never swept.

    // Two more replicas, each with its own connection in its own thread, sweep together with
    // this one.
    const replicas = [sweepReplica(), sweepReplica()];
    await Promise.all(replicas.map((replica) => replica.ready));
    for (const replica of replicas) replica.go();
    const counts = await Promise.all([
      ciTasks.sweepZombies(),
      ciTasks.sweepZombies(),
      ...replicas.map((replica) => replica.done),
    ]);
    expect(counts.reduce((sum, n) => sum + n, 0)).toBe(2);

    for (const id of [a, b]) {
      const row = await taskRow(id);
      expect(row?.status).toBe('failure');
      expect(row?.stopped_at).toBeGreaterThan(longAgo);
    }
    expect((await taskRow(c))?.status).toBe('running');
    expect((await taskRow(d))?.status).toBe('pending');
    expect(await runnerStatus(stale.id)).toBe('offline');
    expect(await runnerStatus(live.id)).toBe('active');
    expect(await ciTasks.sweepZombies()).toBe(0);
  });

  it('fails the step a swept job was running; the steps after it never ran', async () => {
    const { repo } = await repository();
    const runner = await registeredRunner();
    const { tasks } = await run(repo.id, 1);
    const id = tasks[0]?.id ?? 0;
    await kiln.app.services.ciTasks.claimTask(id, runner.id, 0);
    const { db } = kiln.app.database;
    await db.deleteFrom('ci_task_steps').where('task_id', '=', id).execute();
    await db
      .insertInto('ci_task_steps')
      .values(
        (['success', 'running', 'pending'] as const).map((status, index) => ({
          task_id: id,
          step_index: index,
          name: `step ${index}`,
          status,
          log_index: 0,
          log_length: 0,
          started_at: null,
          stopped_at: null,
        })),
      )
      .execute();
    await kiln.app.services.ciTasks.sweepZombies();
    const steps = await db
      .selectFrom('ci_task_steps')
      .select('status')
      .where('task_id', '=', id)
      .orderBy('step_index')
      .execute();
    expect(steps.map((step) => step.status)).toEqual(['success', 'failure', 'skipped']);
  });

  it('brings an offline runner back to idle when it calls again', async () => {
    const { repo } = await repository();
    const runner = await registeredRunner();
    const { tasks } = await run(repo.id, 1);
    await kiln.app.services.ciTasks.claimTask(tasks[0]?.id ?? 0, runner.id, 0);
    await kiln.app.services.ciTasks.sweepZombies();
    expect(await runnerStatus(runner.id)).toBe('offline');
    const back = await kiln.app.services.runners.authenticate(runner.uuid, runner.secret);
    expect(back.status).toBe('idle');
    expect(await runnerStatus(runner.id)).toBe('idle');
  });
});

describe('ephemeral runners', () => {
  it('takes one task only and is removed when it completes', async () => {
    const { repo } = await repository();
    const runner = await registeredRunner({ ephemeral: true });
    const { tasks } = await run(repo.id, 2);
    const [first, second] = tasks.map((task) => task.id) as [number, number];
    const { ciTasks, runners } = kiln.app.services;
    expect(await ciTasks.claimTask(first, runner.id)).toBeDefined();
    expect(await ciTasks.claimTask(second, runner.id)).toBeUndefined();
    expect(await ciTasks.completeTask(first, runner.id, 'success')).toEqual({
      completed: true,
      runnerRemoved: true,
    });
    await expect(runners.authenticate(runner.uuid, runner.secret)).rejects.toBeInstanceOf(
      Unauthenticated,
    );
    expect((await taskRow(first))?.status).toBe('success');
  });

  it('keeps a lasting runner, idle again, after its task completes', async () => {
    const { repo } = await repository();
    const runner = await registeredRunner();
    const { tasks } = await run(repo.id, 1);
    const id = tasks[0]?.id ?? 0;
    const { ciTasks, runners } = kiln.app.services;
    await ciTasks.claimTask(id, runner.id);
    expect(await ciTasks.completeTask(id, runner.id, 'failure')).toEqual({
      completed: true,
      runnerRemoved: false,
    });
    expect(await ciTasks.completeTask(id, runner.id, 'success')).toEqual({
      completed: false,
      runnerRemoved: false,
    });
    expect((await runners.authenticate(runner.uuid, runner.secret)).status).toBe('idle');
  });
});

describe('CI secrets and variables', () => {
  it('refuses to create a secret without SERVICE_SECRET_KEY and then delivers none', async () => {
    const { repo } = await repository();
    const withKey = kiln.app.services.ciSecrets;
    const withoutKey = new CiSecretService(new CiSettingStore(kiln.app.database.db), undefined);
    const access = { repoId: repo.id, isRepoAdmin: true };
    await expect(withoutKey.put(access, 'TOKEN', 'value')).rejects.toBeInstanceOf(Invalid);
    await expect(withoutKey.put(access, 'TOKEN', 'value')).rejects.toThrow(/SERVICE_SECRET_KEY/);
    await withKey.put(access, 'TOKEN', 'value');
    const { tasks } = await run(repo.id, 1);
    const id = tasks[0]?.id ?? 0;
    expect(await withKey.secretsForTask(id)).toEqual({ TOKEN: 'value' });
    expect(await withoutKey.secretsForTask(id)).toEqual({});
  });

  it('lists names and times only, stores ciphertext, and leaves out a tampered value', async () => {
    const { repo } = await repository();
    const access = { repoId: repo.id, isRepoAdmin: true };
    const { ciSecrets } = kiln.app.services;
    await ciSecrets.put(access, 'deploy_key', 'first');
    await ciSecrets.put(access, 'DEPLOY_KEY', 'second');
    await ciSecrets.put(access, 'OTHER', 'other value');
    const listed = await ciSecrets.list(access);
    expect(listed.map((secret) => secret.name)).toEqual(['DEPLOY_KEY', 'OTHER']);
    expect(JSON.stringify(listed)).not.toContain('second');
    const { db } = kiln.app.database;
    const stored = await db
      .selectFrom('ci_secrets')
      .select('encrypted_value')
      .where('repo_id', '=', repo.id)
      .where('name', '=', 'OTHER')
      .executeTakeFirstOrThrow();
    expect(stored.encrypted_value).toMatch(/^v1:[\w-]+:[\w-]+:[\w-]+$/);
    expect(stored.encrypted_value).not.toContain('other value');
    const parts = stored.encrypted_value.split(':');
    parts[2] = Buffer.from('forged').toString('base64url');
    await db
      .updateTable('ci_secrets')
      .set({ encrypted_value: parts.join(':') })
      .where('repo_id', '=', repo.id)
      .where('name', '=', 'OTHER')
      .execute();
    const { tasks } = await run(repo.id, 1);
    expect(await ciSecrets.secretsForTask(tasks[0]?.id ?? 0)).toEqual({ DEPLOY_KEY: 'second' });
  });

  it('keeps a short secret stored before the rule but hands it to no job', async () => {
    const { repo } = await repository();
    const access = { repoId: repo.id, isRepoAdmin: true };
    const { ciSecrets } = kiln.app.services;
    await expect(ciSecrets.put(access, 'PIN', ' ab ')).rejects.toThrow(/would reveal it/);
    const key = deriveSecretKey('test secret key for CI secrets');
    const store = new CiSettingStore(kiln.app.database.db);
    const legacy = sealSecret(key, 'abc', `ci-secret\u0000${repo.id}\u0000PIN`);
    await store.putSecret(repo.id, 'PIN', legacy, Date.now());
    await ciSecrets.put(access, 'LONG', 'abcd');
    expect((await ciSecrets.list(access)).map((secret) => secret.name)).toEqual(['LONG', 'PIN']);
    const { tasks } = await run(repo.id, 1);
    expect(await ciSecrets.secretsForTask(tasks[0]?.id ?? 0)).toEqual({ LONG: 'abcd' });
  });

  it('checks names and admin rights', async () => {
    const { repo } = await repository();
    const { ciSecrets, ciVariables } = kiln.app.services;
    const admin = { repoId: repo.id, isRepoAdmin: true };
    for (const bad of ['', '1ABC', 'WITH SPACE', 'GITHUB_TOKEN', 'gitea_x', 'CI']) {
      await expect(ciSecrets.put(admin, bad, 'v')).rejects.toBeInstanceOf(Invalid);
      await expect(ciVariables.put(admin, bad, 'v')).rejects.toBeInstanceOf(Invalid);
    }
    const reader = { repoId: repo.id, isRepoAdmin: false };
    await expect(ciSecrets.list(reader)).rejects.toThrow(/repository admins/);
    await expect(ciVariables.put(reader, 'X', 'v')).rejects.toThrow(/repository admins/);
  });

  it('creates, replaces, lists, delivers and deletes variables in plain text', async () => {
    const { repo } = await repository();
    const access = { repoId: repo.id, isRepoAdmin: true };
    const { ciVariables } = kiln.app.services;
    await ciVariables.put(access, 'region', 'eu-west');
    await ciVariables.put(access, 'REGION', 'eu-central');
    await ciVariables.put(access, 'TIER', 'prod');
    expect((await ciVariables.list(access)).map((v) => [v.name, v.value])).toEqual([
      ['REGION', 'eu-central'],
      ['TIER', 'prod'],
    ]);
    const { tasks } = await run(repo.id, 1);
    expect(await ciVariables.variablesForTask(tasks[0]?.id ?? 0)).toEqual({
      REGION: 'eu-central',
      TIER: 'prod',
    });
    await ciVariables.delete(access, 'tier');
    expect((await ciVariables.list(access)).map((v) => v.name)).toEqual(['REGION']);
    await expect(ciVariables.delete(access, 'TIER')).rejects.toThrow(/does not exist/);
  });
});
