import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OTHER_WRITERS_WINDOW_MS } from '../../db/change-clock.ts';
import { type Database, migrate, openDatabase } from '../../db/database.ts';
import { sha256Hex } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import { RegistrationTokenStore } from './registration-token.store.ts';
import { RunnerStore, type StoredRunner } from './runner.store.ts';
import type { RegistrationToken } from './runner.types.ts';
import { RunnerRegistryService } from './runner-registry.service.ts';

/** The real store, counting the row reads that every credential check would otherwise make. */
class CountingRunnerStore extends RunnerStore {
  reads = 0;

  override async findByUuid(uuid: string): Promise<StoredRunner | undefined> {
    this.reads += 1;
    return super.findByUuid(uuid);
  }
}

/** The real store, counting lookups of registration tokens. */
class CountingTokenStore extends RegistrationTokenStore {
  reads = 0;

  override async findByHash(hash: string): Promise<RegistrationToken | undefined> {
    this.reads += 1;
    return super.findByHash(hash);
  }
}

let dataDir: string;
let database: Database;
let runners: CountingRunnerStore;
let tokens: CountingTokenStore;
let registry: RunnerRegistryService;

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'kiln-runner-registry-'));
  database = await openDatabase({ databaseUrl: undefined, dataDir });
  await migrate(database);
  runners = new CountingRunnerStore(database.db);
  tokens = new CountingTokenStore(database.db);
  registry = new RunnerRegistryService(runners, tokens, database.rowChanges);
});
afterEach(async () => {
  await database.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const TOKEN = 'registration token of the test';

/** Mints the test's registration token; returns its id. */
async function minted(): Promise<string> {
  const id = newId();
  await tokens.insert({
    id,
    tokenHash: sha256Hex(TOKEN),
    scope: { kind: 'instance' },
    createdBy: null,
    createdAt: new Date(),
    lastUsedAt: null,
  });
  return id;
}

function register(name = 'box') {
  return registry.register({
    token: TOKEN,
    name,
    version: 'v0.2.11',
    labels: ['linux'],
    ephemeral: false,
    capabilities: [],
  });
}

async function registered() {
  await minted();
  return register();
}

describe('RunnerRegistryService.authenticate', () => {
  it('reads the runner row once for calls in a row while no row changes', async () => {
    const { runner, token } = await registered();
    // Any update moves the clock of existing rows, so the row kept at registration is stale.
    await database.db.updateTable('runner_registration_tokens').set({ last_used_at: 1 }).execute();
    const before = runners.reads;
    for (let call = 0; call < 5; call++) {
      expect((await registry.authenticate(runner.uuid, token)).id).toBe(runner.id);
    }
    expect(runners.reads - before).toBe(1);
  });

  it('knows a runner it has just registered, and keeps it while others register', async () => {
    await minted();
    const first = await register('first');
    for (let n = 0; n < 5; n++) await register(`runner ${n}`);
    const declared = await registry.declare({
      uuid: first.runner.uuid,
      token: first.token,
      version: 'v0.2.11',
      labels: ['linux'],
      capabilities: [],
    });
    expect(declared.id).toBe(first.runner.id);
    expect((await registry.authenticate(first.runner.uuid, first.token)).name).toBe('first');
    expect(runners.reads).toBe(0);
  });

  it("sees a change another process made to the runner's row", async () => {
    const { runner, token } = await registered();
    await registry.authenticate(runner.uuid, token);
    const other = new DatabaseSync(join(dataDir, 'kiln.db'));
    other.prepare('delete from runners where uuid = ?').run(runner.uuid);
    other.close();
    await setTimeout(2 * OTHER_WRITERS_WINDOW_MS);
    await expect(registry.authenticate(runner.uuid, token)).rejects.toThrow('unregistered runner');
  });

  it('still checks the secret of every call against the remembered row', async () => {
    const { runner, token } = await registered();
    await registry.authenticate(runner.uuid, token);
    await expect(registry.authenticate(runner.uuid, `${token}x`)).rejects.toThrow(
      'unregistered runner',
    );
    await expect(registry.authenticate(runner.uuid, '')).rejects.toThrow('unregistered runner');
  });

  it('reads the row again after any write, so a deleted runner is refused at once', async () => {
    const { runner, token } = await registered();
    await registry.authenticate(runner.uuid, token);
    await database.db.deleteFrom('runners').where('uuid', '=', runner.uuid).execute();
    await expect(registry.authenticate(runner.uuid, token)).rejects.toThrow('unregistered runner');
  });

  it('refuses a runner deleted right after it registered', async () => {
    const { runner, token } = await registered();
    await database.db.deleteFrom('runners').where('uuid', '=', runner.uuid).execute();
    await expect(
      registry.declare({ uuid: runner.uuid, token, version: 'v1', labels: [], capabilities: [] }),
    ).rejects.toThrow('unregistered runner');
  });
});

describe('RunnerRegistryService.register', () => {
  it('reads the registration token once for a fleet registering with it', async () => {
    await minted();
    for (let n = 0; n < 5; n++) await register(`runner ${n}`);
    // The first registration records the token's use, an update that makes its row stale once.
    expect(tokens.reads).toBe(2);
  });

  it('registers no more runners with a token once it is deleted', async () => {
    const id = await minted();
    await register();
    await tokens.delete(id);
    await expect(register()).rejects.toThrow('runner registration token not found');
  });
});
