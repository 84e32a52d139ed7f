/**
 * Secrets at rest: after a scenario that makes every kind of secret Kiln keeps (passwords,
 * personal access tokens from the page and the API's factory, web sessions, runner registration
 * tokens, per-runner secrets from a real Register call, CI secrets with SERVICE_SECRET_KEY set),
 * none of their plaintexts appears in the database: the SQLite file with its -wal and -shm (read
 * while the server still runs, before any checkpoint, and again after it stops), every other file
 * of the data dir, and, on PostgreSQL, a `pg_dump` of the database.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR } from '../../src/domain/runners/runner.policy.ts';
import { runnerClients } from '../actions/fixtures.ts';
import { signIn } from '../replicas/support.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const ADMIN = 'secretsadmin';
let kiln: TestServer;
/** Every plaintext the scenario made, with what it is. */
const secrets = new Map<string, string>();
/** Values stored as they are (runner uuids): finding them proves the scan reads the tables. */
const controls: string[] = [];

function remember(what: string, value: string | undefined): void {
  expect(value, what).toBeTruthy();
  secrets.set(value ?? '', what);
}

beforeAll(async () => {
  kiln = await startTestServer({
    SERVICE_ADMIN_HANDLES: ADMIN,
    SERVICE_SECRET_KEY: `at-rest suite key ${randomBytes(8).toString('hex')}`,
    SERVICE_PROTECT_ENABLED: 'false',
  });
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const { user: owner } = await kiln.make.user({ handle: ADMIN, password });
  remember('password', password);
  remember('personal access token (service)', await kiln.make.token(owner));

  // A web session, and a token made on the tokens page with it.
  const browser = await signIn(kiln.url, owner.handle, password);
  remember('session cookie', browser.cookies.get('kiln_session'));
  const page = await browser.post('/settings/tokens', { name: 'from the page', scope: 'all' });
  expect(page.status).toBe(201);
  remember(
    'personal access token (page)',
    /<code id="new-token">([^<]+)</.exec(await page.text())?.[1],
  );

  // A repository with a CI secret set through its settings form.
  await kiln.app.services.repos.create(owner, { name: 'vault', autoInit: true });
  const ciSecret = `ci-${randomBytes(16).toString('hex')}`;
  const saved = await browser.post(`/repos/${owner.handle}/vault/settings/ci/secrets`, {
    name: 'DEPLOY_KEY',
    value: ciSecret,
  });
  expect(saved.status).toBe(303);
  remember('CI secret', ciSecret);

  // Registration tokens (instance and repository), and a runner registered over the protocol.
  const admin = kiln.app.services.runnerAdmin;
  const { token: instance } = await admin.createToken(OPERATOR, { kind: 'instance' });
  remember('registration token (instance)', instance);
  const repo = (await kiln.app.services.repos.get(owner, owner.handle, 'vault')).repo;
  const { token: scoped } = await admin.createToken(OPERATOR, {
    kind: 'repository',
    repoId: repo.id,
  });
  remember('registration token (repository)', scoped);
  const { runner } = runnerClients(kiln);
  for (const token of [instance, scoped]) {
    const registered = await runner.register({ name: 'box', token, version: 'v1', labels: ['x'] });
    remember('runner secret', registered.runner?.token);
    controls.push(registered.runner?.uuid ?? '');
  }
}, 60_000);
afterAll(async () => {
  await kiln?.close();
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

/** The secrets found in `bytes`, as "what (where)". */
function leaks(bytes: Buffer, where: string): string[] {
  const found: string[] = [];
  for (const [value, what] of secrets) {
    if (bytes.includes(Buffer.from(value, 'utf8'))) found.push(`${what} (${where})`);
  }
  return found;
}

describe('secrets at rest', () => {
  it('reads the stored rows: values kept in the clear are found', async () => {
    expect(controls.length).toBe(2);
    const haystack =
      kiln.app.database.dialect === 'sqlite'
        ? Buffer.concat(filesUnder(dataDir()).map((file) => readFileSync(file)))
        : pgDump();
    for (const uuid of controls) expect(haystack.includes(Buffer.from(uuid))).toBe(true);
  });

  it('no plaintext in the SQLite file, its WAL and -shm, or anywhere in the data dir', async () => {
    if (kiln.app.database.dialect === 'sqlite') {
      // Read while the server runs: fresh writes are still in the WAL, not yet checkpointed.
      expect(readdirSync(dataDir())).toEqual(expect.arrayContaining(['kiln.db', 'kiln.db-wal']));
    }
    expect(scanDataDir()).toEqual([]);
  });

  it.skipIf(!process.env.KILN_TEST_DATABASE_URL)(
    'no plaintext in a pg_dump of the database',
    () => {
      const dump = pgDump();
      expect(dump.length).toBeGreaterThan(0);
      expect(leaks(dump, 'pg_dump')).toEqual([]);
    },
  );

  it('no plaintext in the data dir once the server has stopped and checkpointed', async () => {
    await kiln.server.close();
    await kiln.app.close();
    expect(scanDataDir()).toEqual([]);
  });
});

function dataDir(): string {
  return path.join(kiln.dataDir, 'data');
}

function scanDataDir(): string[] {
  const root = dataDir();
  return filesUnder(root).flatMap((file) => leaks(readFileSync(file), path.relative(root, file)));
}

/** `pg_dump` of the test database, with the newest PostgreSQL client installed. */
function pgDump(): Buffer {
  const url = kiln.app.config.databaseUrl ?? '';
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  const bin = versions.length > 0 ? `/usr/lib/postgresql/${versions[0]}/bin/pg_dump` : 'pg_dump';
  return execFileSync(bin, ['--no-owner', '--data-only', url], { maxBuffer: 256 * 2 ** 20 });
}
