/**
 * Forks of private repositories that earlier versions of Kiln made borrowed their parent's
 * objects through alternates, and so could hand out by id whatever the parent received later.
 * Kiln, started on such a data dir, gives each of those forks its own copies and drops the link,
 * before it serves. Kiln runs as its own process (`node src/main.ts serve`), and
 * the old layout is made on disk while it is stopped.
 */
import { readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import { auth } from '../support/http.ts';
import {
  type Instance,
  prepareInstance,
  type ServerProcess,
  startServerProcess,
} from './server-process.ts';

const OWNER = 'upgrade-owner';

let instance: Instance | undefined;
let root: string;
let dataDir: string;
let env: Record<string, string>;
let git: GitClient;
let token: string;
let server: ServerProcess | undefined;

beforeAll(async () => {
  instance = await prepareInstance('kiln-fork-upgrade-', OWNER);
  ({ root, dataDir, env, token } = instance);
  git = await GitClient.create();
}, 60_000);

afterEach(async () => {
  await server?.stop();
  server = undefined;
});

afterAll(async () => {
  await git?.dispose();
  await instance?.dispose();
});

const objectsOf = (name: string) =>
  path.join(dataDir, 'repositories', OWNER, `${name}.git`, 'objects');

async function post(url: string, body: object): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...auth.token(token), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  return response.status;
}

/** Commits `files` in a clone of the repository and pushes it to main; returns the commit. */
async function pushCommit(url: string, files: Record<string, string>): Promise<string> {
  const clone = await git.clone(url);
  const sha = await git.commit(clone, files);
  await git.ok(['push', '-q', 'origin', 'HEAD:main'], { cwd: clone });
  return sha;
}

/** The layout earlier versions gave a fork of a private repository: no objects of its own. */
async function borrowLikeBefore(fork: string, parent: string): Promise<void> {
  const objects = objectsOf(fork);
  for (const entry of await readdir(objects)) {
    if (entry === 'info') continue;
    await rm(path.join(objects, entry), { recursive: true, force: true });
  }
  await writeFile(
    path.join(objects, 'info', 'alternates'),
    `${path.relative(objects, objectsOf(parent))}\n`,
  );
}

const hasAlternates = async (name: string) =>
  (await stat(path.join(objectsOf(name), 'info', 'alternates')).catch(() => undefined)) !==
  undefined;

describe('upgrading a data dir with forks of private repositories', () => {
  it('stops forks borrowing from a private parent, and they keep working', async () => {
    server = await startServerProcess(env, { cwd: root });
    expect(await post(`${server.url}/api/v1/user/repos`, { name: 'vault', private: true })).toBe(
      201,
    );
    const parentUrl = () => repoUrl(server!.url, OWNER, 'vault', { token, as: 'password' });
    const forkUrl = () => repoUrl(server!.url, OWNER, 'vault-fork', { token, as: 'password' });
    const forked = await pushCommit(parentUrl(), { 'notes.txt': 'before the fork\n' });
    expect(
      await post(`${server.url}/api/v1/repos/${OWNER}/vault/forks`, { name: 'vault-fork' }),
    ).toBe(202);
    await server.stop();

    await borrowLikeBefore('vault-fork', 'vault');
    await git.ok(['fsck', '--connectivity-only', '--no-progress'], {
      cwd: path.dirname(objectsOf('vault-fork')),
    });

    server = await startServerProcess(env, { cwd: root });
    expect(await eventually(async () => !(await hasAlternates('vault-fork')), 30_000)).toBe(true);

    // Complete on its own, and served as before.
    await git.ok(['fsck', '--no-dangling', '--no-progress'], {
      cwd: path.dirname(objectsOf('vault-fork')),
    });
    const clone = await git.clone(forkUrl());
    expect(await git.ok(['rev-parse', 'HEAD'], { cwd: clone })).toBe(forked);

    // What the parent receives now is not in the fork's reach.
    const later = await pushCommit(parentUrl(), { 'notes.txt': 'after the upgrade\n' });
    const into = await git.init();
    const fetched = await git.run(['-c', 'protocol.version=2', 'fetch', '-q', forkUrl(), later], {
      cwd: into,
    });
    expect(fetched.code).not.toBe(0);
  }, 120_000);
});
