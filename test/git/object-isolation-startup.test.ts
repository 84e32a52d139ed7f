/**
 * Start-up repairs object loans that break the isolation rule (a repository borrows only from a
 * public repository that exists now), whoever made them: here, alternates files written by
 * hand while Kiln is stopped, one naming a private repository's store and one naming a store
 * outside the repositories root. Kiln, started on that data dir, gives both borrowers their own
 * copies of what their refs reach and drops the loans, logs each, and only then serves.
 */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitClient, repoUrl } from '../support/git.ts';
import { auth } from '../support/http.ts';
import {
  type Instance,
  prepareInstance,
  type ServerProcess,
  startServerProcess,
} from './server-process.ts';

const OWNER = 'startup-owner';

let instance: Instance;
let git: GitClient;
let server: ServerProcess | undefined;

beforeAll(async () => {
  instance = await prepareInstance('kiln-isolation-start-', OWNER);
  git = await GitClient.create();
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await git?.dispose();
  await instance?.dispose();
});

const repoDir = (name: string) => path.join(instance.dataDir, 'repositories', OWNER, `${name}.git`);
const alternatesOf = (name: string) => path.join(repoDir(name), 'objects', 'info', 'alternates');
const exists = async (file: string) => (await stat(file).catch(() => undefined)) !== undefined;

async function create(name: string, isPrivate: boolean): Promise<void> {
  const response = await fetch(`${server!.url}/api/v1/user/repos`, {
    method: 'POST',
    headers: { ...auth.token(instance.token), 'content-type': 'application/json' },
    body: JSON.stringify({ name, private: isPrivate }),
  });
  await response.arrayBuffer();
  expect(response.status).toBe(201);
}

/** Pushes one commit with `files` as branch `main`; returns its id. */
async function push(name: string, files: Record<string, string>): Promise<string> {
  const work = await git.init();
  const sha = await git.commit(work, files);
  const url = repoUrl(server!.url, OWNER, name, { token: instance.token, as: 'password' });
  await git.ok(['push', '-q', url, 'HEAD:refs/heads/main'], { cwd: work });
  return sha;
}

describe('start-up and hand-made loans', () => {
  it('repairs every loan that breaks the rule before serving, and logs each', async () => {
    const env = { ...instance.env, SERVICE_LOG_LEVEL: 'warn' };
    server = await startServerProcess(env, { cwd: instance.root });
    await create('vault', true);
    await create('borrower', false);
    await create('stray', false);
    const secret = await push('vault', { 'secret.txt': 'only the owner\n' });
    await push('borrower', { 'own.txt': 'mine\n' });
    // Its only commit is made to lean on the outside store below.
    const outside = path.join(instance.root, 'elsewhere.git');
    await git.ok(['init', '-q', '--bare', outside]);
    const work = await git.init();
    const leaning = await git.commit(work, { 'out.txt': 'outside\n' });
    const hidden = await git.commit(work, { 'out.txt': 'not for the stray repository\n' });
    await git.ok(['push', '-q', outside, 'HEAD:refs/heads/main'], { cwd: work });
    await server.stop();

    // A public repository borrowing a private one's store serves its objects by id to anyone.
    await writeFile(alternatesOf('borrower'), '../../vault.git/objects\n');
    await mkdir(path.dirname(alternatesOf('stray')), { recursive: true });
    await writeFile(alternatesOf('stray'), `${path.join(outside, 'objects')}\n`);
    await git.ok(['update-ref', 'refs/heads/main', leaning], { cwd: repoDir('stray') });

    server = await startServerProcess(env, { cwd: instance.root });
    // Already done once the server listens.
    expect(await exists(alternatesOf('borrower'))).toBe(false);
    expect(await exists(alternatesOf('stray'))).toBe(false);
    const log = server.log();
    expect(log).toMatch(/"repository":"startup-owner\/borrower".*has its own now/);
    expect(log).toMatch(/"repository":"startup-owner\/stray".*elsewhere\.git.*has its own now/);

    // Both are whole on their own, and neither hands out what only the stores they borrowed had.
    for (const name of ['borrower', 'stray']) {
      await git.ok(['fsck', '--no-dangling', '--no-progress'], { cwd: repoDir(name) });
    }
    for (const [name, sha] of [
      ['borrower', secret],
      ['stray', hidden],
    ] as const) {
      const into = await git.init();
      const anonymous = repoUrl(server.url, OWNER, name);
      const fetched = await git.run(['-c', 'protocol.version=2', 'fetch', '-q', anonymous, sha], {
        cwd: into,
      });
      expect(fetched.code).not.toBe(0);
    }
    // A second start finds nothing left to do.
    await server.stop();
    server = await startServerProcess(env, { cwd: instance.root });
    expect(server.log()).not.toMatch(/borrowed objects it may not/);
  }, 120_000);
});
