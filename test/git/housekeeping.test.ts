/**
 * Repository housekeeping as a client and an operator see it: pushes over smart HTTP pile up
 * packs until the threshold, then Kiln repacks in the background (multi-pack index, bitmap,
 * commit-graph) and every object a ref reaches stays there (clone and fsck clean). Unreachable
 * objects go only once older than the grace period; a public parent that lends its objects to
 * a fork prunes nothing, so the fork keeps cloning fsck-clean. Runs show in /metrics.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HousekeepingStore } from '../../src/domain/repos/housekeeping.store.ts';
import type { User } from '../../src/domain/users/user.types.ts';
import { eventually } from '../support/eventually.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import { auth, Browser } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { makeRepo } from './fixtures.ts';

const GRACE_SECONDS = 6;

let kiln: TestServer;
let git: GitClient;
let owner: User;
let token: string;

beforeAll(async () => {
  kiln = await startTestServer({
    SERVICE_HOUSEKEEPING_PACK_THRESHOLD: '3',
    SERVICE_HOUSEKEEPING_LOOSE_THRESHOLD: '1',
    SERVICE_HOUSEKEEPING_PRUNE_AFTER: `${GRACE_SECONDS}s`,
    SERVICE_HOUSEKEEPING_PRUNE_INTERVAL: '0s',
    SERVICE_ADMIN_HANDLES: 'hk-admin',
  });
  git = await GitClient.create();
  ({ user: owner, token } = await kiln.make.userWithToken());
});
afterAll(async () => {
  await git?.dispose();
  await kiln?.close();
});

const onDisk = (repoOwner: string, name: string) =>
  path.join(kiln.app.dataDir, 'repositories', repoOwner.toLowerCase(), `${name.toLowerCase()}.git`);

const packDir = (repo: Repo) => path.join(onDisk(repo.owner, repo.name), 'objects', 'pack');
const packs = (repo: Repo) => readdirSync(packDir(repo)).filter((f) => f.endsWith('.pack')).length;
const maintained = (repo: Repo) =>
  existsSync(path.join(packDir(repo), 'multi-pack-index')) &&
  existsSync(
    path.join(onDisk(repo.owner, repo.name), 'objects/info/commit-graphs/commit-graph-chain'),
  );

type Repo = { owner: string; name: string };

const url = (repo: Repo) => repoUrl(kiln.url, repo.owner, repo.name, { token, as: 'password' });

/** Whether the server's copy of the repository holds the object. */
async function serverHas(repo: Repo, oid: string): Promise<boolean> {
  const result = await git.run(['--git-dir', onDisk(repo.owner, repo.name), 'cat-file', '-e', oid]);
  return result.code === 0;
}

/** Clones over HTTP and fscks both the clone and the server's copy. */
async function clonesClean(repo: Repo): Promise<void> {
  const clone = await git.clone(url(repo));
  await git.ok(['fsck', '--strict', '--no-progress'], { cwd: clone });
  await git.ok(['--git-dir', onDisk(repo.owner, repo.name), 'fsck', '--no-progress']);
}

/** Runs of the repository that finished after `since` (epoch ms), from any process. */
async function runsAfter(repo: Repo, since: number) {
  const runs = await kiln.app.services.housekeeping.listRecentRuns(500);
  const key = `${repo.owner}/${repo.name}`.toLowerCase();
  return runs.filter((run) => run.repoKey === key && run.startedAt >= since);
}

/**
 * Pushes `branch` with one new commit on top of main (a handful of objects: received loose).
 * Branching from main keeps other branches' commits out of its history.
 */
async function pushCommit(work: string, repo: Repo, branch: string, content: string) {
  await git.run(['checkout', '-q', 'main'], { cwd: work }); // fails only while main is unborn
  if (branch !== 'main') await git.ok(['checkout', '-q', '-B', branch], { cwd: work });
  const sha = await git.commit(work, { [`${branch}.txt`]: content }, content);
  await git.ok(['push', '-q', '-f', url(repo), `${branch}:${branch}`], { cwd: work });
  return sha;
}

/** Forks `parent` over the API for a new user; the fork borrows the parent's objects. */
async function forkOf(parent: Repo) {
  const forker = await kiln.make.userWithToken();
  const forked = await fetch(`${kiln.url}/api/v1/repos/${parent.owner}/${parent.name}/forks`, {
    method: 'POST',
    headers: auth.token(forker.token),
  });
  expect(forked.status).toBe(202);
  const fork = { owner: forker.user.handle, name: parent.name };
  const alternates = path.join(onDisk(fork.owner, fork.name), 'objects/info/alternates');
  expect(existsSync(alternates)).toBe(true);
  return { forker, fork, alternates };
}

describe('housekeeping after pushes', () => {
  it('leaves packs alone below the threshold, then rolls them up and keeps every object', async () => {
    const repo = await makeRepo(kiln, owner, { name: 'packed' });
    const work = await git.init();
    // 40 commits a push: more than git's unpack limit, so each push leaves a pack.
    for (let push = 1; push <= 3; push++) {
      await git.commitMany(work, 40, `p${push}`);
      await git.ok(['push', '-q', url(repo), 'main'], { cwd: work });
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(packs(repo)).toBe(3);
    expect(maintained(repo)).toBe(false);

    await git.commitMany(work, 40, 'p4');
    await git.ok(['push', '-q', url(repo), 'main'], { cwd: work });
    expect(await eventually(async () => maintained(repo))).toBe(true);
    expect(packs(repo)).toBeLessThan(4);
    expect(readdirSync(packDir(repo)).some((f) => f.endsWith('.bitmap'))).toBe(true);
    await clonesClean(repo);

    expect(await eventually(async () => (await runsAfter(repo, 0)).length > 0)).toBe(true);
    const metrics = await (await fetch(`${kiln.url}/metrics`)).text();
    const ok = [
      ...metrics.matchAll(/^kiln_housekeeping_runs_total\{kind="\w+",outcome="ok"\} (\d+)/gm),
    ];
    expect(ok.reduce((sum, match) => sum + Number(match[1]), 0)).toBeGreaterThan(0);
  });

  it('gives a big history pushed in one go its commit-graph, below every threshold', async () => {
    const repo = await makeRepo(kiln, owner, { name: 'imported' });
    const work = await git.init();
    // One push, one pack: 300 commits and 1.5 MB that does not compress, like a migrated history.
    await git.commit(work, { 'data.bin': randomBytes(1536 * 1024) }, 'import');
    await git.commitMany(work, 300, 'history');
    await git.ok(['push', '-q', url(repo), 'main'], { cwd: work });
    expect(packs(repo)).toBe(1);
    expect(await eventually(async () => maintained(repo))).toBe(true);
    await clonesClean(repo);
  });

  it('prunes unreachable objects past the grace period and keeps younger ones', async () => {
    const repo = await makeRepo(kiln, owner, { name: 'pruned' });
    const work = await git.init();
    await pushCommit(work, repo, 'main', 'base\n');
    const old = await pushCommit(work, repo, 'old', 'soon unreachable\n');
    await git.ok(['push', '-q', url(repo), ':old'], { cwd: work });
    await new Promise((resolve) => setTimeout(resolve, (GRACE_SECONDS + 1) * 1000));

    const young = await pushCommit(work, repo, 'young', 'unreachable, but young\n');
    await git.ok(['push', '-q', url(repo), ':young'], { cwd: work });
    const since = Date.now();
    await pushCommit(work, repo, 'main', 'next\n');
    expect(await eventually(async () => (await runsAfter(repo, since)).length > 0)).toBe(true);
    expect(await eventually(async () => !(await serverHas(repo, old)))).toBe(true);
    expect(await serverHas(repo, young)).toBe(true);
    const runs = await runsAfter(repo, since);
    expect(runs.every((run) => run.outcome === 'ok')).toBe(true);
    await clonesClean(repo);
  });

  it('keeps a fork of a housekept public parent clonable and fsck-clean', async () => {
    const parent = await makeRepo(kiln, owner, { name: 'lender' });
    const work = await git.init();
    await pushCommit(work, parent, 'main', 'shared history\n');
    const feature = await pushCommit(work, parent, 'feature', 'only the fork keeps this\n');

    const { forker, fork, alternates } = await forkOf(parent);

    // The parent drops the branch the fork still has, then waits out the grace period.
    await git.ok(['push', '-q', url(parent), ':feature'], { cwd: work });
    await new Promise((resolve) => setTimeout(resolve, (GRACE_SECONDS + 1) * 1000));
    const since = Date.now();
    await pushCommit(work, parent, 'main', 'parent moves on\n');
    expect(await eventually(async () => (await runsAfter(parent, since)).length > 0)).toBe(true);
    expect(await serverHas(parent, feature)).toBe(true);

    const forkUrl = repoUrl(kiln.url, fork.owner, fork.name, {
      token: forker.token,
      as: 'password',
    });
    const forkWork = await git.clone(forkUrl);
    await git.ok(['checkout', '-q', 'feature'], { cwd: forkWork });
    await git.commit(forkWork, { 'fork.txt': 'fork work\n' });
    await git.ok(['push', '-q', forkUrl, 'feature'], { cwd: forkWork });
    expect(await eventually(async () => maintained(fork))).toBe(true);
    expect(existsSync(alternates)).toBe(true);

    const clone = await git.clone(forkUrl, ['--branch', 'feature']);
    await git.ok(['fsck', '--strict', '--no-progress'], { cwd: clone });
    await git.ok(['--git-dir', onDisk(fork.owner, fork.name), 'fsck', '--no-progress']);
    expect(await git.ok(['log', '--format=%H', '-1', 'HEAD~1'], { cwd: clone })).toBe(feature);
  });

  it('lists runs and pack counts on /admin/housekeeping for admins, 404 for everyone else', async () => {
    expect((await fetch(`${kiln.url}/admin/housekeeping`)).status).toBe(404);
    const signIn = async (handle: string) => {
      const { password } = await kiln.make.user({ handle });
      const browser = new Browser(kiln.url);
      await browser.get('/login');
      expect((await browser.post('/login', { login: handle, password })).status).toBe(303);
      return browser;
    };
    expect((await (await signIn('hk-someone')).get('/admin/housekeeping')).status).toBe(404);

    const page = await (await signIn('hk-admin')).get('/admin/housekeeping');
    expect(page.status).toBe(200);
    const text = await page.text();
    // The repository maintained above, with its runs and its pack count now.
    expect(text).toContain(`${owner.handle.toLowerCase()}/packed`);
    expect(text).toMatch(/<td class="[^"]*">(incremental|full)<\/td>/);
  });

  it('gives a fork its own copies only while housekeeping leaves the fork alone', async () => {
    const parent = await makeRepo(kiln, owner, { name: 'withdrawn' });
    const work = await git.init();
    await pushCommit(work, parent, 'main', 'lent, then withdrawn\n');
    const { fork, alternates } = await forkOf(parent);

    // A run holds the fork's lease: making the parent private waits before copying into it.
    const leases = new HousekeepingStore(kiln.app.database.db);
    const key = `${fork.owner}/${fork.name}`.toLowerCase();
    expect(await leases.claim(key, 'a run', Date.now(), 60_000)).toBeDefined();
    let answered = false;
    const privatized = fetch(`${kiln.url}/api/v1/repos/${parent.owner}/${parent.name}`, {
      method: 'PATCH',
      headers: { ...auth.token(token), 'content-type': 'application/json' },
      body: JSON.stringify({ private: true }),
    }).finally(() => {
      answered = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(answered).toBe(false);
    expect(existsSync(alternates)).toBe(true);

    await leases.release(key, 'a run', undefined);
    expect((await privatized).status).toBe(200);
    expect(existsSync(alternates)).toBe(false);
    await git.ok(['--git-dir', onDisk(fork.owner, fork.name), 'fsck', '--no-progress']);
  });
});
