/**
 * Two Kiln processes (`node src/main.ts serve`) over one PostgreSQL database and one repository
 * directory, with every kind of load spread over both, prove what docs/deployment.md promises:
 * pull numbers stay unique and gap-free under concurrent creates; concurrent pushes and merges to
 * one branch lose no update; a session, a token and a challenge pass made on one replica work on
 * the other; the zombie sweep running on both fails each expired task exactly once.
 *
 * Runs only when KILN_TEST_DATABASE_URL names a PostgreSQL (`scripts/with-postgres.sh npx vitest
 * run test/replicas`); SQLite is a single-process database and has no replicas.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRun } from '../../src/domain/ci/workflow-run.store.ts';
import { OPERATOR } from '../../src/domain/runners/runner.policy.ts';
import type { User } from '../../src/domain/users/user.types.ts';
import { issuePass } from '../../src/http/protect/pass-cookie.ts';
import { postgresAdminUrl } from '../support/database.ts';
import type { Factories } from '../support/factories.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import { auth, Browser, json } from '../support/http.ts';
import { createDeployment, type Deployment, type KilnProcess } from './kiln-process.ts';
import { installFailureAudit, pushWithRetry, readFailureAudit, signIn } from './support.ts';

const CAPTCHA_SECRET = 'captcha secret shared by both replicas';

let deployment: Deployment;
let replicas: [KilnProcess, KilnProcess];
let make: Factories;
let app: Awaited<ReturnType<Deployment['open']>>['app'];
let git: GitClient;
let owner: User;
let token: string;

/** The replica for the i-th request: load alternates between the two. */
const on = (i: number) => replicas[i % 2] as KilnProcess;

async function api(
  base: string,
  path: string,
  init: { method?: string; body?: unknown; token?: string } = {},
) {
  const response = await fetch(`${base}/api/v1${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { ...auth.token(init.token ?? token), 'content-type': 'application/json' },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : JSON.parse(text) };
}

/** A repository with a README on main and a clone of it; the clone pushes through replica 0. */
async function repoWithClone(name: string) {
  const created = await api(on(0).url, '/user/repos', { body: { name, auto_init: true } });
  expect(created.status).toBe(201);
  const url = (i: number) => repoUrl(on(i).url, owner.handle, name, { token, as: 'username' });
  const work = await git.clone(url(0));
  return { url, work };
}

describe.skipIf(!postgresAdminUrl)('two replicas on one PostgreSQL and one data dir', () => {
  beforeAll(async () => {
    deployment = await createDeployment({
      SERVICE_PROTECT_CAPTCHA_PROVIDER: 'hcaptcha',
      SERVICE_PROTECT_CAPTCHA_SITE_KEY: 'site-key',
      SERVICE_PROTECT_CAPTCHA_SECRET_KEY: CAPTCHA_SECRET,
      // Nothing answers here: the pass is minted by the test, not through a provider.
      SERVICE_PROTECT_CAPTCHA_VERIFY_URL: 'http://127.0.0.1:9/verify',
      SERVICE_PROTECT_ANONYMOUS_BUDGET: '2',
      SERVICE_PROTECT_USER_BUDGET: '1000',
      SERVICE_PROTECT_WINDOW: '1h',
      SERVICE_CI_ZOMBIE_RECLAIM_INTERVAL: '1s',
    });
    // Migrations run once, here, before the servers start on the migrated database.
    ({ app, make } = await deployment.open());
    replicas = [await deployment.start(), await deployment.start()];
    git = await GitClient.create();
    ({ user: owner, token } = await make.userWithToken());
  }, 90_000);

  afterAll(async () => {
    await git?.dispose();
    await deployment?.dispose();
  });

  it('numbers 50 pulls created concurrently on both replicas 1..50, no gap, no repeat', async () => {
    const { url, work } = await repoWithClone('numbers');
    // 50 head branches in one push, each one commit ahead of main.
    const refspecs: string[] = [];
    for (let i = 0; i < 50; i++) {
      await git.ok(['checkout', '-q', '-B', `b${i}`, 'origin/main'], { cwd: work });
      await git.commit(work, { [`f${i}.txt`]: `${i}\n` }, `branch ${i}`);
      refspecs.push(`b${i}:b${i}`);
    }
    await git.ok(['push', '-q', url(1), ...refspecs], { cwd: work });

    const created = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        api(on(i).url, `/repos/${owner.handle}/numbers/pulls`, {
          body: { title: `pull ${i}`, head: `b${i}`, base: 'main', body: '' },
        }),
      ),
    );
    expect(created.map((c) => c.status)).toEqual(Array(50).fill(201));
    const numbers = created.map((c) => c.body.number as number).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const listed = await fetch(
      `${on(1).url}/api/v1/repos/${owner.handle}/numbers/pulls?state=all&limit=1`,
      { headers: auth.token(token) },
    );
    expect(listed.headers.get('x-total-count')).toBe('50');
  });

  it('loses no update when pushes and merges hit one branch through both replicas', async () => {
    const { url, work } = await repoWithClone('race');
    const pulls = 8;
    const refspecs: string[] = [];
    for (let i = 0; i < pulls; i++) {
      await git.ok(['checkout', '-q', '-B', `topic${i}`, 'origin/main'], { cwd: work });
      await git.commit(work, { [`topic${i}.txt`]: `${i}\n` }, `topic ${i}`);
      refspecs.push(`topic${i}:topic${i}`);
    }
    await git.ok(['push', '-q', url(0), ...refspecs], { cwd: work });
    for (let i = 0; i < pulls; i++) {
      const pull = await api(on(i).url, `/repos/${owner.handle}/race/pulls`, {
        body: { title: `topic ${i}`, head: `topic${i}`, base: 'main', body: '' },
      });
      expect(pull.status).toBe(201);
    }

    // Four pushers, each with its own clone, each pushing four commits to main through
    // alternating replicas (rebasing when the branch moved), while every pull is merged
    // through alternating replicas at the same time.
    const pushed: string[] = [];
    const pushers = Array.from({ length: 4 }, async (_, p) => {
      const clone = await git.clone(url(p));
      for (let c = 0; c < 4; c++) {
        pushed.push(
          await pushWithRetry(git, clone, url(p + c), { [`push-${p}-${c}.txt`]: `${p} ${c}\n` }),
        );
      }
    });
    const merged: number[] = [];
    const mergers = Array.from({ length: pulls }, async (_, i) => {
      for (let attempt = 0; attempt < 20; attempt++) {
        const result = await api(
          on(i + attempt).url,
          `/repos/${owner.handle}/race/pulls/${i + 1}/merge`,
          { body: { Do: 'merge' } },
        );
        if (result.status === 200) {
          merged.push(i + 1);
          return;
        }
        // The base moved under the merge twice in a row: try again, as a client would.
        expect(result.status).toBe(409);
      }
      throw new Error(`pull ${i + 1} never merged`);
    });
    await Promise.all([...pushers, ...mergers]);
    expect(merged.sort((a, b) => a - b)).toEqual(Array.from({ length: pulls }, (_, i) => i + 1));
    expect(pushed).toHaveLength(16);

    // Every acknowledged push and every merge commit is in main's history.
    const check = await git.clone(url(1));
    const inMain = async (sha: string) =>
      (await git.run(['merge-base', '--is-ancestor', sha, 'HEAD'], { cwd: check })).code === 0;
    for (const sha of pushed) expect(await inMain(sha), `pushed ${sha}`).toBe(true);
    for (let n = 1; n <= pulls; n++) {
      const pull = await api(on(n).url, `/repos/${owner.handle}/race/pulls/${n}`);
      expect(pull.body.merged).toBe(true);
      expect(await inMain(pull.body.merge_commit_sha), `merge of #${n}`).toBe(true);
      expect(await inMain(pull.body.head.sha), `head of #${n}`).toBe(true);
    }
    const files = (await git.ok(['ls-files'], { cwd: check })).split('\n');
    for (let i = 0; i < pulls; i++) expect(files).toContain(`topic${i}.txt`);
    const handle = app.services.repos.handle(
      (await app.services.repos.get(owner, owner.handle, 'race')).repo,
    );
    expect((await git.run(['fsck', '--no-progress'], { cwd: handle.path })).code).toBe(0);
  }, 120_000);

  it('answers from memory yet shows a change: at once to the writer, soon to the other', async () => {
    await api(on(0).url, '/user/repos', { body: { name: 'memo', auto_init: true } });
    const path = `/api/v1/repos/${owner.handle}/memo`;
    const anonymous = (i: number) => fetch(`${on(i).url}${path}`).then((r) => r.status);
    // Both replicas have read (and may keep) the public repository.
    expect([await anonymous(0), await anonymous(1)]).toEqual([200, 200]);
    for (let round = 0; round < 5; round++) {
      const writer = round % 2;
      const other = 1 - writer;
      const made = await api(on(writer).url, `/repos/${owner.handle}/memo`, {
        method: 'PATCH',
        body: { private: round % 2 === 0, description: `round ${round}` },
      });
      expect(made.status).toBe(200);
      const expected = round % 2 === 0 ? 404 : 200;
      // Read-your-writes: the replica that wrote answers the new state on the next request.
      expect(await anonymous(writer)).toBe(expected);
      // The other one within the notification delay (docs/deployment.md).
      await expect.poll(() => anonymous(other), { timeout: 2_000, interval: 20 }).toBe(expected);
      const seen = await api(on(other).url, `/repos/${owner.handle}/memo`);
      expect(seen.body.description).toBe(`round ${round}`);
    }
  });

  it('honours a session, a token and a challenge pass made on the other replica', async () => {
    const { user, password } = await make.user();
    // Session: signed in on replica 0, used on replica 1, ended on 1, dead on 0.
    const browser = await signIn(on(0).url, user.handle, password);
    const onOther = new Browser(on(1).url);
    for (const [name, value] of browser.cookies) onOther.cookies.set(name, value);
    expect((await onOther.get('/settings')).status).toBe(200);

    // Token: generated on replica 1's page, used on replica 0's API.
    const page = await onOther.post('/settings/tokens', { name: 'cross', scope: 'all' });
    expect(page.status).toBe(201);
    const fresh = /<code id="new-token">([^<]+)<\/code>/.exec(await page.text())?.[1];
    expect(fresh).toBeTruthy();
    const self = await fetch(`${on(0).url}/api/v1/user`, { headers: auth.token(fresh ?? '') });
    expect(self.status).toBe(200);
    expect((await json(self)).login).toBe(user.handle);

    expect((await onOther.post('/logout', {})).status).toBe(303);
    const after = new Browser(on(0).url);
    for (const [name, value] of browser.cookies) after.cookies.set(name, value);
    expect((await after.get('/settings')).status).toBe(303);

    // Pass: minted with the shared captcha secret, honoured by both; anonymous callers on the
    // same replicas are sent to the challenge once their small budget is spent.
    const pass = issuePass(CAPTCHA_SECRET, 3600, Date.now(), { secure: false }).value;
    for (const replica of replicas) {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const response = await fetch(`${replica.url}/search?q=x`, {
          headers: { cookie: `service_human=${pass}` },
          redirect: 'manual',
        });
        statuses.push(response.status);
      }
      expect(statuses).toEqual([200, 200, 200, 200]);
    }
    const anonymous: number[] = [];
    for (let i = 0; i < 4; i++) {
      anonymous.push((await fetch(`${on(1).url}/search?q=y`, { redirect: 'manual' })).status);
    }
    expect(anonymous).toEqual([200, 200, 303, 303]);
  });

  it('fails each expired task exactly once with the sweep running on both replicas', async () => {
    const db = app.database.db;
    await installFailureAudit(db);
    const { repo } = await app.services.repos.create(owner, { name: 'ci' });
    const { runnerAdmin, runners } = app.services;
    const { token: registration } = await runnerAdmin.createToken(OPERATOR, { kind: 'instance' });
    const runner = async (name: string) =>
      (
        await runners.register({
          token: registration,
          name,
          version: 'v1',
          labels: ['ubuntu-latest'],
          ephemeral: false,
          capabilities: [],
        })
      ).runner;
    const [stale, live] = [await runner('stale'), await runner('live')];
    const { tasks } = await createRun(
      db,
      {
        repoId: repo.id,
        workflowName: 'CI',
        workflowFile: 'ci.yml',
        event: 'push',
        ref: 'refs/heads/main',
        sha: 'a'.repeat(40),
        triggeredBy: null,
      },
      Array.from({ length: 12 }, (_, i) => ({ name: `job ${i}`, jobKey: `job${i}`, runsOn: [] })),
    );
    const ids = tasks.map((task) => task.id);
    const expired = ids.slice(0, 10);
    const now = Date.now();
    // Ten tasks claimed by `stale` and past their deadline; one running with time left; one pending.
    await db
      .updateTable('ci_tasks')
      .set({
        status: 'running',
        runner_id: stale.id,
        started_at: now - 7200_000,
        deadline_at: now - 1,
      })
      .where('id', 'in', expired)
      .execute();
    await db
      .updateTable('ci_tasks')
      .set({ status: 'running', runner_id: live.id, started_at: now, deadline_at: now + 3600_000 })
      .where('id', '=', ids[10] ?? 0)
      .execute();

    // Each replica sweeps every second; give both several turns.
    const deadline = Date.now() + 15_000;
    for (;;) {
      const left = await db
        .selectFrom('ci_tasks')
        .select('id')
        .where('id', 'in', expired)
        .where('status', '=', 'running')
        .execute();
      if (left.length === 0 || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await new Promise((resolve) => setTimeout(resolve, 3000));

    const rows = await db
      .selectFrom('ci_tasks')
      .select(['id', 'status'])
      .where('id', 'in', ids)
      .execute();
    const status = new Map(rows.map((row) => [Number(row.id), row.status]));
    for (const id of expired) expect(status.get(id)).toBe('failure');
    expect(status.get(ids[10] ?? 0)).toBe('running');
    expect(status.get(ids[11] ?? 0)).toBe('pending');
    const audit = await readFailureAudit(db, expired);
    expect(audit).toEqual(expired.map((id) => ({ task_id: id, failures: 1 })));
    const runnerRows = await db
      .selectFrom('runners')
      .select(['id', 'status'])
      .where('id', 'in', [stale.id, live.id])
      .execute();
    expect(Object.fromEntries(runnerRows.map((r) => [r.id, r.status]))).toEqual({
      [stale.id]: 'offline',
      [live.id]: expect.not.stringMatching('offline'),
    });
  }, 60_000);
});
