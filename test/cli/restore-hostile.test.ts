/**
 * A restore brings back only data, never behaviour, and git never runs repository-controlled
 * code. Crafted dumps (a real dump plus, generated, every kind of hook, every config key that
 * runs a program, alternates, attributes, escaping paths, links and devices, packed by GNU tar)
 * restore into a working instance whose repositories hold Kiln's own config and hooks, with a
 * report naming what was skipped; then hooks and config planted straight into the restored
 * repositories still run nothing through pushes, fetches, merges, diffs and archives over HTTP.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTar } from '../../src/lib/tar-reader.ts';
import { runCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import {
  craftDump,
  EVERYTHING,
  type HostilePlan,
  hostilePlan,
  plantInRepository,
  readText,
  tarEntries,
} from '../support/hostile-dump.ts';
import { envFor, removeLeftovers, serveRestored } from '../support/restored.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let source: TestServer;
let git: GitClient;
let scratch: string;
let base: string;
let order: string[];
const tokens = { alice: '', bob: '' };
const databases: TestDatabase[] = [];

async function api(url: string, token: string, path: string, init: RequestInit = {}) {
  const response = await fetch(`${url}${path}`, {
    ...init,
    headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
  });
  return { status: response.status, text: await response.text() };
}

beforeAll(async () => {
  source = await startTestServer();
  git = await GitClient.create();
  scratch = mkdtempSync(join(tmpdir(), 'kiln-hostile-restore-'));
  tokens.alice = (await source.make.userWithToken({ handle: 'alice' })).token;
  tokens.bob = (await source.make.userWithToken({ handle: 'bob' })).token;
  const made = await api(source.url, tokens.alice, '/api/v1/user/repos', {
    method: 'POST',
    body: JSON.stringify({ name: 'tools', auto_init: true }),
  });
  expect(made.status).toBe(201);
  const fork = await api(source.url, tokens.bob, '/api/v1/repos/alice/tools/forks', {
    method: 'POST',
    body: '{}',
  });
  expect(fork.status).toBe(202);
  const dumpFile = join(scratch, 'base.tar');
  const dump = await runCli(
    ['dump', '-o', dumpFile],
    envFor(join(source.dataDir, 'data'), source.app.config.databaseUrl),
  );
  expect(dump.code).toBe(0);
  base = join(scratch, 'base');
  mkdirSync(base);
  expect(spawnSync('tar', ['-xf', dumpFile, '-C', base]).status).toBe(0);
  order = tarEntries(dumpFile);
}, 120_000);

afterAll(() => removeLeftovers({ source, git, databases, scratch }));

/** What the restore's report must name for `plan`. */
function expectedReport(plan: HostilePlan): string[] {
  const repo = 'kiln-dump/repositories/alice/tools.git';
  const lines = [`${repo}/config: the repository's config`];
  for (const hook of plan.hooks) lines.push(`${repo}/hooks/${hook}`);
  const byExtra: Record<string, string[]> = {
    'hook-symlink': [`${repo}/hooks/post-update: a symlink`],
    'hook-directory': [`${repo}/hooks/pre-push/inner: a hook`],
    alternates: [`${repo}/objects/info/alternates: alternates naming`, 'http-alternates:'],
    attributes: [`${repo}/info/attributes: not an object, a ref or HEAD`],
    dotdot: ['/dotdot: an unsafe path'],
    absolute: ['/absolute: outside the places of a Kiln dump'],
    'symlink-out': ['kiln-dump/files/link-out: a symlink', `${repo}/objects/linked: a symlink`],
    'through-symlink': ['kiln-dump/files/through: a symlink'],
    hardlink: ['a hardlink, not a regular file'],
    device: ['kiln-dump/files/null-device: a device'],
    fifo: [`${repo}/objects/fifo: a fifo`],
    'files-into-repository': ['kiln-dump/files/repositories/alice/tools.git/hooks/post-receive:'],
    'pid-file': ['kiln-dump/files/kiln.pid: not a file a dump carries'],
    'bad-refs': [`${repo}/refs/heads/-evil: not a valid ref name`, '"refs/heads/bad..name"'],
    'control-name': ['kiln-dump/files/\\x1b[31mred: an unsafe path'],
    'bad-head': [`${repo}/HEAD: HEAD names neither a branch nor an object id`],
  };
  for (const extra of plan.extras) lines.push(...byExtra[extra]!);
  return lines;
}

/** Every path under `dir` whose mode lets group or others in. */
function widePaths(dir: string): string[] {
  const wide: string[] = [];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: false }) as string[]) {
    const stats = lstatSync(join(dir, entry));
    if (!stats.isSymbolicLink() && (stats.mode & 0o077) !== 0) wide.push(entry);
  }
  if ((lstatSync(dir).mode & 0o077) !== 0) wide.push('.');
  return wide;
}

/** Push, pull request with its diff and commit page, merge, fetch, a fork's push, an archive. */
async function exercise(url: string): Promise<void> {
  const work = await git.clone(
    repoUrl(url, 'alice', 'tools', { token: tokens.alice, as: 'username' }),
  );
  await git.commit(work, {
    '.gitattributes': '* diff=evil merge=evil filter=evil\n',
    'a.txt': 'a\n',
  });
  await git.ok(['push', '-q', 'origin', 'main'], { cwd: work });
  await git.ok(['checkout', '-q', '-b', 'feature'], { cwd: work });
  const tip = await git.commit(work, { 'a.txt': 'b\n', 'b.txt': 'new\n' }, 'feature');
  await git.ok(['push', '-q', 'origin', 'feature'], { cwd: work });
  const pull = await api(url, tokens.alice, '/api/v1/repos/alice/tools/pulls', {
    method: 'POST',
    body: JSON.stringify({ title: 'Feature', head: 'feature', base: 'main' }),
  });
  expect(pull.status).toBe(201);
  const { number, diff_url } = JSON.parse(pull.text) as { number: number; diff_url: string };
  const diff = await api(diff_url, tokens.alice, '');
  expect(diff.text).toContain('+new');
  expect((await api(url, tokens.alice, `/repos/alice/tools/commit/${tip}`)).status).toBe(200);
  const merged = await api(url, tokens.alice, `/api/v1/repos/alice/tools/pulls/${number}/merge`, {
    method: 'POST',
    body: JSON.stringify({ Do: 'merge' }),
  });
  expect(merged.status).toBe(200);
  await git.ok(['fetch', '-q', 'origin'], { cwd: work });
  expect(await git.ok(['log', '--oneline', 'origin/main'], { cwd: work })).toContain('feature');
  const forked = await git.clone(
    repoUrl(url, 'bob', 'tools', { token: tokens.bob, as: 'username' }),
  );
  await git.commit(forked, { 'bob.txt': 'bob\n' }, 'from bob');
  await git.ok(['push', '-q', 'origin', 'main'], { cwd: forked });
  const archive = await api(url, tokens.alice, '/api/v1/repos/alice/tools/archive/main.tar.gz');
  expect(archive.status).toBe(200);
  const again = await git.clone(
    repoUrl(url, 'alice', 'tools', { token: tokens.alice, as: 'username' }),
  );
  await git.ok(['fsck', '--no-dangling'], { cwd: again });
}

async function restoreAndUse(plan: HostilePlan): Promise<void> {
  const dir = mkdtempSync(join(scratch, 'case-'));
  const outside = join(dir, 'outside');
  const markers = join(dir, 'markers');
  mkdirSync(markers, { recursive: true });
  const dumpFile = join(dir, 'crafted.tar');
  craftDump({
    base,
    order,
    repository: 'alice/tools.git',
    plan,
    scratch: dir,
    outside,
    markers,
    out: dumpFile,
  });
  const database = await createTestDatabase();
  databases.push(database);
  const dataDir = join(dir, 'restored', 'data');
  const restore = await runCli(['restore', '-i', dumpFile], envFor(dataDir, database.url));
  expect(restore.code, restore.stderr).toBe(0);
  for (const line of expectedReport(plan)) expect(restore.stderr).toContain(line);
  // Names from the archive are shown escaped: none of them drives the operator's terminal.
  expect(restore.stderr).not.toContain('\u001b');

  // Only data came back: Kiln's config and hook, no loan outside, nothing escaped.
  const repo = join(dataDir, 'repositories', 'alice', 'tools.git');
  const kilnRepo = join(source.dataDir, 'data', 'repositories', 'alice', 'tools.git');
  expect(readText(join(repo, 'config'))).toBe(readText(join(kilnRepo, 'config')));
  expect(readdirSync(join(repo, 'hooks'))).toEqual(['pre-receive']);
  expect(existsSync(join(repo, 'objects', 'info', 'alternates'))).toBe(false);
  expect(existsSync(join(repo, 'info', 'attributes'))).toBe(false);
  expect(readText(join(repo, 'HEAD'))).toBe('ref: refs/heads/main\n');
  for (const escaped of ['dotdot', 'absolute', 'through-file']) {
    expect(existsSync(join(outside, escaped))).toBe(false);
  }
  expect(existsSync(join(dataDir, 'kiln.pid'))).toBe(false);
  expect(widePaths(join(dataDir, '..'))).toEqual([]);

  const restored = await serveRestored(dataDir, database.url);
  try {
    // Whatever else might ever write into a repository, git runs none of it.
    for (const owner of ['alice', 'bob']) {
      plantInRepository(join(dataDir, 'repositories', owner, 'tools.git'), plan, {
        outside,
        markers,
        procReceive: false,
        drivers: false,
      });
    }
    await exercise(restored.url);
  } finally {
    await restored.close();
  }
  expect(readdirSync(markers)).toEqual([]);
}

describe('kiln restore of a crafted dump', () => {
  it('restores only data, reports the rest, and git runs none of it', async () => {
    await fc.assert(fc.asyncProperty(hostilePlan, restoreAndUse), {
      numRuns: 2,
      examples: [[EVERYTHING]],
    });
  }, 600_000);
});

describe('the archive reader', () => {
  it('names the links, devices and FIFOs GNU tar writes, long names included', async () => {
    const dir = mkdtempSync(join(scratch, 'gnu-'));
    const long = 'd'.repeat(120);
    mkdirSync(join(dir, 'in', long), { recursive: true });
    writeFileSync(join(dir, 'in', long, 'file'), 'data');
    linkSync(join(dir, 'in', long, 'file'), join(dir, 'in', long, 'hard'));
    symlinkSync(`/etc/${long}`, join(dir, 'in', 'soft'));
    expect(spawnSync('mkfifo', [join(dir, 'in', 'fifo')]).status).toBe(0);
    expect(spawnSync('mknod', [join(dir, 'in', 'null'), 'c', '1', '3']).status).toBe(0);
    const archive = join(dir, 'gnu.tar');
    expect(spawnSync('tar', ['--format=gnu', '-cf', archive, '-C', dir, 'in']).status).toBe(0);
    const types = new Map<string, string>();
    for await (const entry of readTar([readFileSync(archive)])) types.set(entry.path, entry.type);
    expect(Object.fromEntries(types)).toEqual({
      in: 'directory',
      [`in/${long}`]: 'directory',
      [`in/${long}/file`]: expect.stringMatching(/^(file|hardlink)$/),
      [`in/${long}/hard`]: expect.stringMatching(/^(file|hardlink)$/),
      'in/soft': 'symlink',
      'in/fifo': 'fifo',
      'in/null': 'device',
    });
    expect([...types.values()]).toContain('hardlink');
  });
});
