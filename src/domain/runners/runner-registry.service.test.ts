import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Database, migrate, openDatabase } from '../../db/database.ts';
import { sha256Hex } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import { RegistrationTokenStore } from './registration-token.store.ts';
import { RunnerStore, type StoredRunner } from './runner.store.ts';
import { RunnerRegistryService } from './runner-registry.service.ts';

/** The real store, counting the row reads that every credential check would otherwise make. */
class CountingRunnerStore extends RunnerStore {
  reads = 0;

  override async findByUuid(uuid: string): Promise<StoredRunner | undefined> {
    this.reads += 1;
    return super.findByUuid(uuid);
  }
}

let dataDir: string;
let database: Database;
let runners: CountingRunnerStore;
let registry: RunnerRegistryService;

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'kiln-runner-registry-'));
  database = await openDatabase({ databaseUrl: undefined, dataDir });
  await migrate(database);
  runners = new CountingRunnerStore(database.db);
  registry = new RunnerRegistryService(
    runners,
    new RegistrationTokenStore(database.db),
    database.changes,
  );
});
afterEach(async () => {
  await database.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function registered() {
  const tokens = new RegistrationTokenStore(database.db);
  const token = 'registration token of the test';
  await tokens.insert({
    id: newId(),
    tokenHash: sha256Hex(token),
    scope: { kind: 'instance' },
    createdBy: null,
    createdAt: new Date(),
    lastUsedAt: null,
  });
  return registry.register({
    token,
    name: 'box',
    version: 'v0.2.11',
    labels: ['linux'],
    ephemeral: false,
    capabilities: [],
  });
}

describe('RunnerRegistryService.authenticate', () => {
  it('reads the runner row once for calls in a row while nothing is written', async () => {
    const { runner, token } = await registered();
    const before = runners.reads;
    for (let call = 0; call < 5; call++) {
      expect((await registry.authenticate(runner.uuid, token)).id).toBe(runner.id);
    }
    expect(runners.reads - before).toBe(1);
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
});
