import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { probeReadWrite } from '../../lib/directory-probe.ts';
import { HealthService } from './health.service.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setup() {
  const dataDir = mkdtempSync(join(tmpdir(), 'kiln-health-'));
  dirs.push(dataDir);
  let now = 0;
  let databaseUp = true;
  const database = {
    ping: async () => {
      if (!databaseUp) throw new Error('database down');
    },
  };
  const health = new HealthService(
    database,
    () => probeReadWrite(dataDir),
    () => now,
  );
  return {
    health,
    dataDir,
    advance: (ms: number) => {
      now += ms;
    },
    setDatabaseUp: (up: boolean) => {
      databaseUp = up;
    },
  };
}

describe('HealthService', () => {
  it('asks the database every time', async () => {
    const { health, setDatabaseUp } = setup();
    await health.check();
    setDatabaseUp(false);
    await expect(health.check()).rejects.toThrow('database down');
  });

  it('finds a data dir that went away once the last success is a second old', async () => {
    const { health, dataDir, advance } = setup();
    await health.check();
    rmSync(dataDir, { recursive: true });
    await health.check();
    advance(1000);
    await expect(health.check()).rejects.toThrow();
    // A failure is not remembered: the next check asks again.
    await expect(health.check()).rejects.toThrow();
  });
});
