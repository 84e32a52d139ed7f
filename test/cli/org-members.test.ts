/**
 * `kiln org add-member` and `kiln org remove-member`: an operator manages an organisation's
 * members from the command line, beside a running server, under the same rules as its owners on
 * the web (a role given to a member replaces theirs, never an organisation without an owner).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let kiln: TestServer;
let env: Record<string, string>;
let ada: { handle: string; token: string };
let bob: { handle: string; token: string };
beforeAll(async () => {
  kiln = await startTestServer();
  const { databaseUrl } = kiln.app.config;
  env = {
    SERVICE_DATA_DIR: join(kiln.dataDir, 'data'),
    SERVICE_LOG_LEVEL: 'silent',
    ...(databaseUrl ? { SERVICE_DATABASE_URL: databaseUrl } : {}),
  };
  for (const [key, handle] of [
    ['ada', 'ada-ops'],
    ['bob', 'bob-ops'],
  ] as const) {
    const made = await kiln.make.userWithToken({ handle });
    if (key === 'ada') ada = { handle, token: made.token };
    else bob = { handle, token: made.token };
  }
});
afterAll(async () => {
  await kiln?.close();
});

/** Whether `token`'s owner may administer the organisation: its hooks are for owners only. */
async function administers(token: string): Promise<boolean> {
  const answer = await fetch(`${kiln.url}/api/v1/orgs/guild/hooks`, {
    headers: { authorization: `token ${token}` },
  });
  return answer.status === 200;
}

const org = (args: string[]) => runCli(['org', ...args], env);
const makeBobOwner = () => [
  'add-member',
  '--org',
  'guild',
  '--username',
  bob.handle,
  '--role',
  'owner',
];

describe('organisation members from the command line', () => {
  it('adds a member, promotes them, and removes the first owner', async () => {
    expect((await org(['create', '--name', 'guild', '--owner', ada.handle])).code).toBe(0);
    expect(await org(['add-member', '--org', 'guild', '--username', bob.handle])).toEqual({
      code: 0,
      stdout: `added ${bob.handle} to guild as member\n`,
      stderr: '',
    });
    expect(await administers(bob.token)).toBe(false);
    const promoted = await org(makeBobOwner());
    expect(promoted.stdout).toBe(`${bob.handle} is now owner of guild (was member)\n`);
    expect(await administers(bob.token)).toBe(true);
    expect(await org(['remove-member', '--org', 'guild', '--username', ada.handle])).toEqual({
      code: 0,
      stdout: `removed ${ada.handle} from guild\n`,
      stderr: '',
    });
    expect(await administers(ada.token)).toBe(false);
    const again = await org(makeBobOwner());
    expect(again.stdout).toBe(`${bob.handle} is already owner of guild\n`);
  });

  it('refuses, in one line with exit code 2, what the rules refuse', async () => {
    const refusals = [
      ['remove-member', '--org', 'guild', '--username', bob.handle],
      ['remove-member', '--org', 'guild', '--username', ada.handle],
      ['add-member', '--org', 'nowhere', '--username', bob.handle],
      ['add-member', '--org', 'guild', '--username', 'nobody-here'],
      ['add-member', '--org', 'guild', '--username', ada.handle, '--role', 'admin'],
      ['add-member', '--org', 'guild'],
    ];
    for (const args of refusals) {
      const result = await org(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
    expect(await administers(bob.token)).toBe(true);
  });
});
