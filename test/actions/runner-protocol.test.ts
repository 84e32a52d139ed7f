/**
 * Phase 1 of the runner protocol against the real server: Ping, Register with tokens of every
 * scope, Declare, and what deleting a token or a runner does to later calls. Driven by a
 * generated Connect client in the binary codec over HTTP/1.1, as the Go runners speak it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Code, ConnectError } from '@connectrpc/connect';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR } from '../../src/domain/runners/runner.policy.ts';
import type { RunnerScope } from '../../src/domain/runners/runner.types.ts';
import { postgresAdminUrl } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { insertRepository, runnerClients, runnerHeaders } from './fixtures.ts';

let kiln: TestServer;
let clients: ReturnType<typeof runnerClients>;
const SECRET_KEY = 'test secret key for CI secrets';

beforeAll(async () => {
  kiln = await startTestServer({ SERVICE_SECRET_KEY: SECRET_KEY });
  clients = runnerClients(kiln);
});
afterAll(async () => {
  await kiln?.close();
});

async function mintToken(scope: RunnerScope = { kind: 'instance' }): Promise<string> {
  return (await kiln.app.services.runnerAdmin.createToken(OPERATOR, scope)).token;
}

async function register(token: string, extra: { name?: string; ephemeral?: boolean } = {}) {
  const { runner } = await clients.runner.register({
    name: extra.name ?? 'build-box',
    token,
    version: 'v0.2.11',
    labels: ['ubuntu-latest', 'self-hosted'],
    ephemeral: extra.ephemeral ?? false,
    capabilities: ['cancelling'],
  });
  if (runner === undefined) throw new Error('RegisterResponse without a runner');
  return runner;
}

async function storedRunner(uuid: string) {
  const all = await kiln.app.services.runnerAdmin.listRunners(OPERATOR, undefined);
  return all.find((runner) => runner.uuid === uuid);
}

/** Deletes the runner's row through a connection of its own, as another replica or the CLI would. */
async function deleteRunnerRowOutside(uuid: string): Promise<void> {
  const databaseUrl = kiln.app.config.databaseUrl;
  if (databaseUrl === undefined) {
    const outside = new DatabaseSync(join(kiln.app.dataDir, 'kiln.db'));
    try {
      outside.prepare('delete from runners where uuid = ?').run(uuid);
    } finally {
      outside.close();
    }
    return;
  }
  const outside = new pg.Client({ connectionString: databaseUrl });
  await outside.connect();
  try {
    await outside.query('delete from runners where uuid = $1', [uuid]);
  } finally {
    await outside.end();
  }
}

async function connectCode(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof ConnectError)) throw new Error(`expected a ConnectError, got ${error}`);
  return `${Code[error.code]}: ${error.rawMessage}`;
}

describe('ping.v1.PingService/Ping', () => {
  it('answers without credentials', async () => {
    expect((await clients.ping.ping({ data: 'build-box' })).data).toBe('Hello, build-box!');
  });
});

describe('runner.v1.RunnerService/Register', () => {
  it('registers with an instance token and returns a fresh secret once', async () => {
    const runner = await register(await mintToken());
    expect(runner.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(runner.token).toMatch(/^[0-9a-f]{40}$/);
    expect(runner.id).toBeGreaterThan(0n);
    expect(runner.name).toBe('build-box');
    expect(runner.version).toBe('v0.2.11');
    expect(runner.labels).toEqual(['ubuntu-latest', 'self-hosted']);
    const stored = await storedRunner(runner.uuid);
    expect(stored?.scope).toEqual({ kind: 'instance' });
    expect(stored?.scopeLabel).toBe('instance');
    expect(stored?.capabilities).toEqual(['cancelling']);
    expect(stored?.status).toBe('idle');
  });

  it('records the repository and organisation scope of the token', async () => {
    const { user } = await kiln.make.user();
    const repo = await insertRepository(kiln, user);
    const org = await kiln.make.org(user);
    const repoRunner = await register(await mintToken({ kind: 'repository', repoId: repo.id }));
    const orgRunner = await register(await mintToken({ kind: 'organisation', orgId: org.id }));
    const storedRepo = await storedRunner(repoRunner.uuid);
    expect(storedRepo?.scope).toEqual({ kind: 'repository', repoId: repo.id });
    expect(storedRepo?.scopeLabel).toBe(`${user.handle}/${repo.name}`);
    const storedOrg = await storedRunner(orgRunner.uuid);
    expect(storedOrg?.scope).toEqual({ kind: 'organisation', orgId: org.id });
    expect(storedOrg?.scopeLabel).toBe(org.handle);
  });

  it('takes labels from agent_labels when labels is empty, as old runners send them', async () => {
    const { runner } = await clients.runner.register({
      name: 'old-runner',
      token: await mintToken(),
      agentLabels: ['linux', 'x64'],
    });
    expect(runner?.labels).toEqual(['linux', 'x64']);
    expect((await storedRunner(runner?.uuid ?? ''))?.labels).toEqual(['linux', 'x64']);
  });

  it('echoes and stores the ephemeral flag', async () => {
    const runner = await register(await mintToken(), { ephemeral: true });
    expect(runner.ephemeral).toBe(true);
    expect((await storedRunner(runner.uuid))?.ephemeral).toBe(true);
    const lasting = await register(await mintToken());
    expect(lasting.ephemeral).toBe(false);
  });

  it('lets one token register many runners and records its last use', async () => {
    const token = await mintToken();
    const first = await register(token, { name: 'one' });
    const second = await register(token, { name: 'two' });
    expect(first.uuid).not.toBe(second.uuid);
    expect(first.token).not.toBe(second.token);
    const tokens = await kiln.app.services.runnerAdmin.listTokens(OPERATOR, undefined);
    const used = tokens.filter((listed) => listed.lastUsedAt !== null);
    expect(used.length).toBeGreaterThan(0);
  });

  it('refuses a deleted token with 401, while runners it registered keep working', async () => {
    const { token, record } = await kiln.app.services.runnerAdmin.createToken(OPERATOR, {
      kind: 'instance',
    });
    const before = await register(token);
    await kiln.app.services.runnerAdmin.deleteToken(OPERATOR, undefined, record.id);
    expect(await connectCode(register(token))).toBe(
      'Unauthenticated: runner registration token not found',
    );
    const raw = await fetch(`${kiln.url}/api/actions/runner.v1.RunnerService/Register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'r', token }),
    });
    expect(raw.status).toBe(401);
    expect(await raw.json()).toMatchObject({ code: 'unauthenticated' });
    const { runner } = await clients.runner.declare(
      { version: 'v0.2.12', labels: ['ubuntu-latest'] },
      { headers: runnerHeaders(before) },
    );
    expect(runner?.uuid).toBe(before.uuid);
  });

  it('refuses a token that never existed, and an empty one', async () => {
    expect(await connectCode(register('0'.repeat(40)))).toMatch(/^Unauthenticated/);
    expect(await connectCode(register(''))).toMatch(/^Unauthenticated/);
  });
});

describe('runner.v1.RunnerService/Declare', () => {
  it('records version, labels and capabilities and never repeats the secret', async () => {
    const registered = await register(await mintToken());
    const { runner } = await clients.runner.declare(
      { version: 'v0.3.0', labels: ['ubuntu-22.04', 'gpu'], capabilities: [] },
      { headers: runnerHeaders(registered) },
    );
    expect(runner?.uuid).toBe(registered.uuid);
    expect(runner?.id).toBe(registered.id);
    expect(runner?.version).toBe('v0.3.0');
    expect(runner?.labels).toEqual(['ubuntu-22.04', 'gpu']);
    expect(runner?.token).toBe('');
    const stored = await storedRunner(registered.uuid);
    expect(stored?.version).toBe('v0.3.0');
    expect(stored?.labels).toEqual(['ubuntu-22.04', 'gpu']);
    expect(stored?.capabilities).toEqual([]);
  });

  it('answers a runner that restarts unchanged with what it registered', async () => {
    const registered = await register(await mintToken());
    const { runner } = await clients.runner.declare(
      {
        version: 'v0.2.11',
        labels: ['ubuntu-latest', 'self-hosted'],
        capabilities: ['cancelling'],
      },
      { headers: runnerHeaders(registered) },
    );
    expect(runner?.uuid).toBe(registered.uuid);
    expect(runner?.version).toBe('v0.2.11');
    expect(runner?.labels).toEqual(['ubuntu-latest', 'self-hosted']);
    expect(runner?.token).toBe('');
    const wrong = { headers: runnerHeaders({ uuid: registered.uuid, token: 'e'.repeat(40) }) };
    expect(await connectCode(clients.runner.declare({ version: 'v0.2.11' }, wrong))).toBe(
      'Unauthenticated: unregistered runner',
    );
  });

  it('answers missing, wrong and unknown credentials alike with 401 unregistered runner', async () => {
    const registered = await register(await mintToken());
    const expected = 'Unauthenticated: unregistered runner';
    expect(await connectCode(clients.runner.declare({ version: 'v1' }))).toBe(expected);
    const onlyUuid = { headers: { 'x-runner-uuid': registered.uuid } };
    expect(await connectCode(clients.runner.declare({}, onlyUuid))).toBe(expected);
    const wrong = { headers: runnerHeaders({ uuid: registered.uuid, token: 'f'.repeat(40) }) };
    expect(await connectCode(clients.runner.declare({}, wrong))).toBe(expected);
    const unknown = { headers: runnerHeaders({ ...registered, uuid: crypto.randomUUID() }) };
    expect(await connectCode(clients.runner.declare({}, unknown))).toBe(expected);
  });

  it('stops accepting a deleted runner at once, on every method', async () => {
    const registered = await register(await mintToken());
    const options = { headers: runnerHeaders(registered) };
    await clients.runner.declare({ version: 'v1' }, options);
    // Calls in a row, as a reporting runner makes them: the last one is answered as before.
    for (let call = 0; call < 3; call++) await clients.runner.fetchTask({}, options);
    const stored = await storedRunner(registered.uuid);
    await kiln.app.services.runnerAdmin.deleteRunner(OPERATOR, undefined, stored?.id ?? '');
    const expected = 'Unauthenticated: unregistered runner';
    expect(await connectCode(clients.runner.fetchTask({}, options))).toBe(expected);
    expect(await connectCode(clients.runner.updateLog({ taskId: 1n }, options))).toBe(expected);
    expect(await connectCode(clients.runner.declare({ version: 'v1' }, options))).toBe(expected);
  });

  it('stops accepting a runner that another process removed, as soon as it hears of it', async () => {
    const registered = await register(await mintToken());
    const options = { headers: runnerHeaders(registered) };
    for (let call = 0; call < 3; call++) await clients.runner.fetchTask({}, options);
    await deleteRunnerRowOutside(registered.uuid);
    // SQLite: within a millisecond; PostgreSQL: once the change notification arrives.
    const refusedBy = Date.now() + 5_000;
    let answer = '';
    while (Date.now() < refusedBy) {
      answer = await connectCode(clients.runner.fetchTask({}, options)).catch(String);
      if (answer.startsWith('Unauthenticated')) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(answer).toBe('Unauthenticated: unregistered runner');
  });
});

describe('secrets at rest', () => {
  it.skipIf(postgresAdminUrl !== undefined)(
    'never writes a registration token, runner secret or CI secret in plain text',
    async () => {
      const token = await mintToken();
      const runner = await register(token);
      await clients.runner.declare({ version: 'v1' }, { headers: runnerHeaders(runner) });
      const { user } = await kiln.make.user();
      const repo = await insertRepository(kiln, user);
      const secretValue = `s3cret-${crypto.randomUUID()}`;
      await kiln.app.services.ciSecrets.put(
        { repoId: repo.id, isRepoAdmin: true },
        'DEPLOY_KEY',
        secretValue,
      );
      const files = readdirSync(kiln.app.dataDir).filter((name) => name.startsWith('kiln.db'));
      expect(files).toContain('kiln.db');
      const bytes = Buffer.concat(files.map((name) => readFileSync(join(kiln.app.dataDir, name))));
      // The scenario did write: the runner's uuid is there, in the clear as it should be.
      expect(bytes.includes(runner.uuid)).toBe(true);
      for (const secret of [token, runner.token, secretValue]) {
        expect(bytes.includes(secret)).toBe(false);
      }
    },
  );
});
