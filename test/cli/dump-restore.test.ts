/**
 * `kiln dump`, `kiln restore` and `kiln doctor` on real instances: a dump taken while pushes
 * keep arriving restores into an empty data directory (and database, on either engine) as a
 * working instance — every repository clones with `git fsck` clean, the API answers as before,
 * tokens still work — and the doctor finds what a broken instance lacks.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TarWriter } from '../../src/lib/tar-writer.ts';
import { LAUNCHER, runCli } from '../support/cli.ts';
import { createTestDatabase, postgresAdminUrl, type TestDatabase } from '../support/database.ts';
import { runScript, shellBlocks } from '../support/doc-blocks.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import { envFor, removeLeftovers, serveRestored } from '../support/restored.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** A record without its `updated_at` fields, at any depth (pushes go on after the dump). */
function withoutTimes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTimes);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== 'updated_at')
        .map(([key, inner]) => [key, withoutTimes(inner)]),
    );
  }
  return value;
}

let source: TestServer;
let git: GitClient;
let token: string;
let scratch: string;
const repos = ['alice/tools', 'alice/secret', 'acme/site', 'bob/tools'];
const databases: TestDatabase[] = [];

async function api(base: string, path: string, init: RequestInit = {}) {
  const response = await fetch(`${base}/api/v1${path}`, {
    ...init,
    headers: {
      authorization: `token ${token}`,
      'content-type': 'application/json',
      ...init.headers,
    },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  source = await startTestServer();
  git = await GitClient.create();
  scratch = mkdtempSync(join(tmpdir(), 'kiln-dump-test-'));
  const { user: alice, token: aliceToken } = await source.make.userWithToken({ handle: 'alice' });
  token = aliceToken;
  const { user: bob, token: bobToken } = await source.make.userWithToken({ handle: 'bob' });
  await source.make.org(alice, 'acme');
  for (const [owner, name, isPrivate] of [
    ['user', 'tools', false],
    ['user', 'secret', true],
    ['orgs/acme', 'site', false],
  ] as const) {
    const created = await api(source.url, `/${owner}/repos`, {
      method: 'POST',
      body: JSON.stringify({ name, private: isPrivate, auto_init: true }),
    });
    expect(created.status).toBe(201);
  }
  const fork = await fetch(`${source.url}/api/v1/repos/alice/tools/forks`, {
    method: 'POST',
    headers: { authorization: `token ${bobToken}`, 'content-type': 'application/json' },
    body: '{}',
  });
  expect(fork.status).toBe(202);
  const work = await git.clone(
    repoUrl(source.url, 'bob', 'tools', { token: bobToken, as: 'username' }),
  );
  await git.ok(['checkout', '-q', '-b', 'feature'], { cwd: work });
  await git.commit(work, { 'feature.txt': 'from bob\n' }, 'a feature');
  await git.ok(['push', '-q', 'origin', 'feature'], { cwd: work });
  const pull = await fetch(`${source.url}/api/v1/repos/alice/tools/pulls`, {
    method: 'POST',
    headers: { authorization: `token ${bobToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'A feature', head: 'bob:feature', base: 'main' }),
  });
  expect(pull.status).toBe(201);
  const release = await api(source.url, '/repos/alice/tools/releases', {
    method: 'POST',
    body: JSON.stringify({ tag_name: 'v1.0.0', name: 'First', body: 'Notes' }),
  });
  expect(release.status).toBe(201);
  void alice;
  void bob;
}, 120_000);

afterAll(() => removeLeftovers({ source, git, databases, scratch }));

/** Pushes a new commit to alice/tools's `busy` branch again and again until stopped. */
function keepPushing(): { stop(): Promise<string[]> } {
  let running = true;
  const tips: string[] = [];
  const loop = (async () => {
    const work = await git.clone(repoUrl(source.url, 'alice', 'tools', { token, as: 'username' }));
    await git.ok(['checkout', '-q', '-b', 'busy'], { cwd: work });
    for (let i = 0; running && i < 200; i++) {
      const tip = await git.commit(work, { [`busy-${i}.txt`]: `${i}\n`.repeat(500) }, `busy ${i}`);
      await git.ok(['push', '-q', 'origin', 'busy'], { cwd: work });
      tips.push(tip);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return tips;
    },
  };
}

/** Runs a CLI command with the source instance's settings. */
function sourceCli(args: string[]) {
  const dataDir = join(source.dataDir, 'data');
  const url = source.app.config.databaseUrl;
  return runCli(args, envFor(dataDir, url));
}

describe('kiln dump and kiln restore', () => {
  let dumpFile: string;
  let before: Map<string, unknown>;
  let pushedTips: string[];

  beforeAll(async () => {
    before = new Map();
    for (const repo of repos) before.set(repo, (await api(source.url, `/repos/${repo}`)).body);
    const pushing = keepPushing();
    // Let some pushes land first, so the dump certainly runs while others are under way.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    dumpFile = join(scratch, 'instance.tar');
    const dump = await sourceCli(['dump', '--output', dumpFile]);
    pushedTips = await pushing.stop();
    expect(dump.stderr).toMatch(/^dumped \d+ rows of \d+ tables and 4 repositories/);
    expect(dump.code).toBe(0);
    expect(pushedTips.length).toBeGreaterThan(1);
  }, 180_000);

  const targets: ('sqlite' | 'postgres')[] = postgresAdminUrl ? ['sqlite', 'postgres'] : ['sqlite'];
  for (const engine of targets) {
    it(`restores into an empty ${engine} instance that serves what the source served`, async () => {
      const dataDir = join(mkdtempSync(join(scratch, `restore-${engine}-`)), 'data');
      let databaseUrl: string | undefined;
      if (engine === 'postgres') {
        const database = await createTestDatabase();
        databases.push(database);
        databaseUrl = database.url;
      }
      const restore = await runCli(['restore', '--input', dumpFile], envFor(dataDir, databaseUrl));
      expect(restore.stderr).toMatch(/^restored \d+ rows and 4 repositories/);
      expect(restore.code).toBe(0);

      const doctor = await runCli(['doctor'], envFor(dataDir, databaseUrl));
      expect(doctor.stdout).toContain('no problems found');
      expect(doctor.code).toBe(0);

      const restored = await serveRestored(dataDir, databaseUrl);
      try {
        for (const repo of repos) {
          const answer = await api(restored.url, `/repos/${repo}`);
          expect(answer.status).toBe(200);
          const expected = JSON.parse(
            JSON.stringify(before.get(repo)).replaceAll(source.url, restored.url),
          );
          expect(withoutTimes(answer.body)).toEqual(withoutTimes(expected));
          const [owner, name] = repo.split('/') as [string, string];
          const clone = await git.clone(
            repoUrl(restored.url, owner, name, { token, as: 'username' }),
            ['--mirror'],
          );
          await git.ok(['fsck', '--strict', '--no-dangling'], { cwd: clone });
        }
        const pulls = await api(restored.url, '/repos/alice/tools/pulls?state=all');
        expect((pulls.body as unknown as { title: string }[]).map((p) => p.title)).toEqual([
          'A feature',
        ]);
        const releases = await api(restored.url, '/repos/alice/tools/releases');
        expect((releases.body as unknown as { tag_name: string }[]).map((r) => r.tag_name)).toEqual(
          ['v1.0.0'],
        );
        // The busy branch is at a tip the source had at some moment: old or new, never torn.
        const busy = await api(restored.url, '/repos/alice/tools/branches/busy');
        if (busy.status === 200) {
          const commit = busy.body.commit as { id: string };
          expect(pushedTips).toContain(commit.id);
        } else {
          expect(busy.status).toBe(404);
        }
      } finally {
        await restored.close();
      }
    }, 180_000);
  }

  it.skipIf(!postgresAdminUrl)(
    'carries a SQLite dump into PostgreSQL',
    async () => {
      // The instance restored into SQLite above, dumped in turn and restored into PostgreSQL.
      const sqliteDir = join(scratch, 'sqlite-copy', 'data');
      const first = await runCli(['restore', '--input', dumpFile], envFor(sqliteDir, undefined));
      expect(first.code).toBe(0);
      const sqliteDump = join(scratch, 'from-sqlite.tar');
      expect((await runCli(['dump', '-o', sqliteDump], envFor(sqliteDir, undefined))).code).toBe(0);
      const database = await createTestDatabase();
      databases.push(database);
      const pgDir = join(scratch, 'pg-copy', 'data');
      const restore = await runCli(['restore', '-i', sqliteDump], envFor(pgDir, database.url));
      expect(restore.code).toBe(0);
      const restored = await serveRestored(pgDir, database.url);
      try {
        for (const repo of repos) {
          const answer = await api(restored.url, `/repos/${repo}`);
          const expected = JSON.parse(
            JSON.stringify(before.get(repo)).replaceAll(source.url, restored.url),
          );
          expect(withoutTimes(answer.body)).toEqual(withoutTimes(expected));
        }
      } finally {
        await restored.close();
      }
    },
    180_000,
  );

  it('writes a tar file that tar itself reads', async () => {
    const listing = await new Promise<string>((resolve, reject) => {
      const child = spawn('tar', ['-tf', dumpFile], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
      });
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`tar ${code}`))));
    });
    const entries = listing.split('\n');
    expect(entries[0]).toBe('kiln-dump/');
    expect(entries).toContain('kiln-dump/manifest.json');
    expect(entries).toContain('kiln-dump/repositories/alice/tools.git/packed-refs');
    expect(entries.some((e) => /^kiln-dump\/database\/\d{3}-repositories\.jsonl$/.test(e))).toBe(
      true,
    );
    // Leases name processes of the instance the dump came from: a restore starts with none.
    expect(entries.some((e) => e.includes('repo_housekeeping'))).toBe(false);
  });

  it('refuses to restore over an instance that has data', async () => {
    const again = await sourceCli(['restore', '--input', dumpFile]);
    expect(again.code).not.toBe(0);
    expect(again.stderr.trim().split('\n')).toHaveLength(1);
    expect(again.stderr).toMatch(/not empty|exists/);
  });

  it('refuses a dump made by a newer Kiln, and a file that is not a dump', async () => {
    const out = new PassThrough();
    const bytes = buffer(out);
    const tar = new TarWriter(out);
    await tar.file(
      'kiln-dump/manifest.json',
      JSON.stringify({
        format: 1,
        kilnVersion: '99.0.0',
        createdAt: new Date().toISOString(),
        engine: 'sqlite',
        migrations: ['0001-accounts', '9999-from-the-future'],
      }),
    );
    await tar.finish();
    out.end();
    const future = join(scratch, 'future.tar');
    writeFileSync(future, await bytes);
    const dataDir = join(mkdtempSync(join(scratch, 'future-')), 'data');
    const refused = await runCli(['restore', '--input', future], envFor(dataDir, undefined));
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('9999-from-the-future');
    const garbage = join(scratch, 'garbage.tar');
    writeFileSync(garbage, 'this is not a tar file '.repeat(100));
    const dataDir2 = join(mkdtempSync(join(scratch, 'garbage-')), 'data');
    const bad = await runCli(['restore', '--input', garbage], envFor(dataDir2, undefined));
    expect(bad.code).not.toBe(0);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('docs/deployment.md', () => {
  it('backs up and restores as its backup block says', async () => {
    const [block] = shellBlocks('deployment.md').filter((b) => b.tag === 'backup');
    expect(block).toBeDefined();
    const dir = mkdtempSync(join(scratch, 'doc-'));
    const bin = join(dir, 'bin');
    await mkdir(bin);
    symlinkSync(LAUNCHER, join(bin, 'kiln'));
    // The page's places, moved into this test's scratch directory; each must be on the page.
    let script = block!.script;
    // On PostgreSQL the new instance needs a new database as well as a new data directory.
    let restoredDatabase = '';
    if (postgresAdminUrl) {
      const database = await createTestDatabase();
      databases.push(database);
      restoredDatabase = ` SERVICE_DATABASE_URL=${database.url}`;
    }
    for (const [from, to] of [
      ['/backups/', `${dir}/`],
      ['/srv/kiln-restored', `${join(dir, 'restored', 'data')}${restoredDatabase}`],
    ]) {
      expect(script).toContain(from);
      script = script.replaceAll(from!, to!);
    }
    const result = await runScript(script, {
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      HOME: process.env.HOME ?? '/tmp',
      SERVICE_LOG_LEVEL: 'silent',
      ...envFor(join(source.dataDir, 'data'), source.app.config.databaseUrl),
    });
    expect(result.stderr).toMatch(/^dumped .*\nrestored /s);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('no problems found');
  }, 120_000);
});

describe('kiln doctor', () => {
  it('says what is wrong with a damaged instance, and what to do', async () => {
    const dataDir = join(mkdtempSync(join(scratch, 'doctor-')), 'data');
    const restore = await runCli(
      ['restore', '--input', join(scratch, 'instance.tar')],
      envFor(dataDir, undefined),
    );
    expect(restore.code).toBe(0);
    const repo = join(dataDir, 'repositories', 'alice', 'tools.git');
    unlinkSync(join(repo, 'hooks', 'pre-receive'));
    // Every object file goes: loose ones (small pushes stay loose) and packs alike.
    for (const entry of await readdir(join(repo, 'objects'))) {
      if (/^[0-9a-f]{2}$/.test(entry) || entry === 'pack') {
        rmSync(join(repo, 'objects', entry), { recursive: true, force: true });
      }
    }
    await mkdir(join(dataDir, 'repositories', 'nobody', 'stray.git'), { recursive: true });
    writeFileSync(join(dataDir, 'repositories', 'nobody', 'stray.git', 'HEAD'), 'garbage\n');
    const doctor = await runCli(['doctor'], envFor(dataDir, undefined));
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain('alice/tools.git: its hooks are missing');
    expect(doctor.stdout).toMatch(/alice\/tools\.git: git fsck finds missing objects/);
    expect(doctor.stdout).toContain('nobody/stray.git: no database row names this repository');
    expect(doctor.stdout).toContain('nobody/stray.git: HEAD does not name a branch');
    expect(doctor.stdout).toMatch(/fix: /);
  });
});

describe('migrations', () => {
  it('refuse, in one line, a database that a newer Kiln migrated', async () => {
    const dataDir = join(mkdtempSync(join(scratch, 'newer-')), 'data');
    const env = envFor(dataDir, undefined);
    expect((await runCli(['migrate'], env)).code).toBe(0);
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(join(dataDir, 'kiln.db'));
    db.prepare("insert into kiln_migrations (name, timestamp) values ('9999-future', 'now')").run();
    db.close();
    const refused = await runCli(['migrate'], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain('newer version of Kiln');
  });
});
