/**
 * Registering a runner again replaces it: a registration with the name of an earlier one in the
 * same scope (instance, organisation, repository) makes the earlier credentials fail at once,
 * so a token stolen from a runner stops working when its owner registers it anew (or deletes
 * it). Ephemeral runners are never replaced by name. Driven over the runner protocol.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR } from '../../src/domain/runners/runner.policy.ts';
import type { RunnerScope } from '../../src/domain/runners/runner.types.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { insertRepository, runnerClients, runnerHeaders } from './fixtures.ts';

let kiln: TestServer;
let clients: ReturnType<typeof runnerClients>;
let scopes: RunnerScope[];
const tokens = new Map<number, string>();

beforeAll(async () => {
  kiln = await startTestServer({ SERVICE_SECRET_KEY: 'runner replacement secret key' });
  clients = runnerClients(kiln);
  const { user } = await kiln.make.userWithToken();
  const org = await kiln.app.services.orgs.createOrg({ name: `org-${Date.now()}`, owner: user });
  const repo = await insertRepository(kiln, user);
  scopes = [
    { kind: 'instance' },
    { kind: 'organisation', orgId: org.id },
    { kind: 'repository', repoId: repo.id },
  ];
  for (const [index, scope] of scopes.entries()) {
    tokens.set(index, (await kiln.app.services.runnerAdmin.createToken(OPERATOR, scope)).token);
  }
});
afterAll(async () => {
  await kiln?.close();
});

type Registered = { uuid: string; token: string; name: string; scope: number; ephemeral: boolean };

async function register(name: string, scope: number, ephemeral: boolean): Promise<Registered> {
  const { runner } = await clients.runner.register({
    name,
    token: tokens.get(scope) ?? '',
    version: 'v0.2.11',
    labels: ['linux'],
    ephemeral,
  });
  if (runner === undefined) throw new Error('RegisterResponse without a runner');
  return { uuid: runner.uuid, token: runner.token, name, scope, ephemeral };
}

/** Whether the server still takes these credentials. */
async function authenticates(runner: Registered): Promise<boolean> {
  try {
    await clients.runner.fetchTask({}, { headers: runnerHeaders(runner) });
    return true;
  } catch (error) {
    if (ConnectError.from(error).code === Code.Unauthenticated) return false;
    throw error;
  }
}

async function deleteRunner(uuid: string): Promise<void> {
  const all = await kiln.app.services.runnerAdmin.listRunners(OPERATOR, undefined);
  const found = all.find((runner) => runner.uuid === uuid);
  await kiln.app.services.runnerAdmin.deleteRunner(OPERATOR, undefined, found?.id ?? '');
}

describe('registering a runner again', () => {
  it('stops the earlier registration of the name in the scope at once', async () => {
    const first = await register('build-box', 0, false);
    expect(await authenticates(first)).toBe(true);
    const again = await register('build-box', 0, false);
    expect(await authenticates(first)).toBe(false);
    expect(await authenticates(again)).toBe(true);
    const listed = await kiln.app.services.runnerAdmin.listRunners(OPERATOR, scopes[0]);
    expect(listed.filter((runner) => runner.name === 'build-box')).toHaveLength(1);
  });

  it('leaves runners of the name in other scopes, and ephemeral ones, alone', async () => {
    const inOrg = await register('shared-name', 1, false);
    const ephemeral = await register('shared-name', 0, true);
    await register('shared-name', 0, false);
    await register('shared-name', 2, false);
    await register('shared-name', 0, true);
    expect(await authenticates(inOrg)).toBe(true);
    expect(await authenticates(ephemeral)).toBe(true);
  });

  it('lets exactly the latest registration of each name and scope authenticate', async () => {
    let run = 0;
    const step = fc.oneof(
      fc.record({
        kind: fc.constant('register' as const),
        name: fc.constantFrom('a', 'b'),
        scope: fc.integer({ min: 0, max: 2 }),
        ephemeral: fc.boolean(),
      }),
      fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 7 }), async (steps) => {
        run++;
        const model: Array<Registered & { live: boolean }> = [];
        for (const s of steps) {
          if (s.kind === 'register') {
            const name = `r${run}-${s.name}`;
            for (const earlier of model) {
              const namesake = earlier.name === name && earlier.scope === s.scope;
              if (namesake && !earlier.ephemeral && !s.ephemeral) earlier.live = false;
            }
            model.push({ ...(await register(name, s.scope, s.ephemeral)), live: true });
          } else {
            const live = model.filter((runner) => runner.live);
            const victim = live[s.pick % Math.max(1, live.length)];
            if (victim === undefined) continue;
            await deleteRunner(victim.uuid);
            victim.live = false;
          }
          for (const runner of model) expect(await authenticates(runner)).toBe(runner.live);
        }
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
