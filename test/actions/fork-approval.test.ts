/**
 * Runs of pull requests from forks wait for a writer's approval when their author cannot write
 * to the base repository: no runner gets their jobs, the API shows them `action_required`, and
 * a writer's approval (POST …/actions/runs/{run}/approve) lets them go. Every kind of author
 * (reader, stranger, collaborator with write or admin, organisation member or owner, site
 * administrator) against public and private bases.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { makeRepo } from '../git/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
import { apiCall, type Json } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { openForkPull } from './fixtures.ts';
import { ReplayRunner } from './replay-runner.ts';

/** One site administrator per base visibility (a handle names one person). */
const ADMINS = {
  public: `forkadmin${randomBytes(3).toString('hex')}`,
  private: `forkadmin${randomBytes(3).toString('hex')}`,
};

let kiln: TestServer;
let git: GitClient;
useWorld(
  { env: { SERVICE_ADMIN_HANDLES: `${ADMINS.public},${ADMINS.private}` }, timeoutMs: 60_000 },
  (world) => {
    ({ kiln, git } = world);
  },
);

/** How the author of the pull relates to the base repository. */
const ROLES = [
  'stranger',
  'reader',
  'writer',
  'admin-collaborator',
  'org-member',
  'org-owner',
  'site-admin',
] as const;
type Role = (typeof ROLES)[number];

/** Who must wait: everyone whose access to the base is below write. */
const ASKS: Record<Role, boolean> = {
  stranger: true,
  reader: true,
  writer: false,
  'admin-collaborator': false,
  'org-member': true,
  'org-owner': false,
  'site-admin': false,
};

/** A base repository with an `on: pull_request` workflow for a label of its own, and a runner. */
async function baseWithWorkflow(options: {
  private: boolean;
  org: boolean;
  workflows?: number;
  /** What the workflow's `on:` says; `pull_request` (its default types) without it. */
  on?: string;
}) {
  const owner = await kiln.make.userWithToken();
  const org = options.org ? await kiln.make.org(owner.user) : undefined;
  const { owner: ownerHandle, name } = await makeRepo(kiln, owner.user, {
    private: options.private,
    ...(org ? { orgName: org.handle } : {}),
  });
  const label = `fork-${randomBytes(4).toString('hex')}`;
  const dir = await git.init();
  const workflow = `on: ${options.on ?? 'pull_request'}\njobs:\n  check:\n    runs-on: ${label}\n    steps: [{run: make check}]\n`;
  const files = Array.from({ length: options.workflows ?? 1 }, (_, at) => [
    `.gitea/workflows/pr${at}.yml`,
    workflow,
  ]);
  await git.commit(dir, Object.fromEntries(files));
  const url = repoUrl(kiln.url, ownerHandle, name, { token: owner.token, as: 'password' });
  await git.ok(['push', '-q', url, 'HEAD:refs/heads/main'], { cwd: dir });
  const runner = await ReplayRunner.register(kiln, { labels: [label] });
  return { owner, org, base: { owner: ownerHandle, name, dir }, runner, label };
}

/** A person related to the base as `role` says. */
async function author(
  role: Role,
  context: Awaited<ReturnType<typeof baseWithWorkflow>>,
  isPrivate = false,
) {
  const person =
    role === 'site-admin'
      ? await kiln.make.userWithToken({ handle: isPrivate ? ADMINS.private : ADMINS.public })
      : await kiln.make.userWithToken();
  const { base, owner, org } = context;
  const { collaborators, orgs } = kiln.app.services;
  const grant = { reader: 'read', writer: 'write', 'admin-collaborator': 'admin' } as const;
  if (role in grant) {
    const level = grant[role as keyof typeof grant];
    await collaborators.put(owner.user, base.owner, base.name, person.user.handle, level);
  }
  if ((role === 'org-member' || role === 'org-owner') && org) {
    const orgRole = role === 'org-owner' ? 'owner' : 'member';
    await orgs.addMemberByHandle(owner.user, org.handle, person.user.handle, orgRole);
  }
  return person;
}

/** The base's runs through the API as its owner sees them, newest first. */
async function runsOf(base: { owner: string; name: string }, token: string): Promise<Json[]> {
  const listed = await apiCall(kiln.url, `/repos/${base.owner}/${base.name}/actions/runs`, {
    token,
  });
  return (listed.body as { workflow_runs: Json[] }).workflow_runs;
}

async function oneRun(base: { owner: string; name: string }, token: string): Promise<Json> {
  expect(await eventually(async () => (await runsOf(base, token)).length === 1)).toBe(true);
  const [run] = await runsOf(base, token);
  return run;
}

/** Polls a few times: a runner that is handed nothing. */
async function receivesNothing(runner: ReplayRunner): Promise<boolean> {
  for (let i = 0; i < 3; i++) {
    if ((await runner.poll()) !== undefined) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

function approve(base: { owner: string; name: string }, run: number, token?: string) {
  const path = `/repos/${base.owner}/${base.name}/actions/runs/${run}/approve`;
  return apiCall(kiln.url, path, { method: 'POST', ...(token ? { token } : {}) });
}

const CASES = [false, true].flatMap((isPrivate) =>
  ROLES.map((role) => ({ role, isPrivate, org: role.startsWith('org-') })),
);

describe('a pull request from a fork', () => {
  it.each(CASES)(
    'by a $role against a private=$isPrivate base',
    async ({ role, isPrivate, org }) => {
      const context = await baseWithWorkflow({ private: isPrivate, org });
      const { owner, base, runner } = context;
      const person = await author(role, context, isPrivate);
      if (role === 'stranger' && isPrivate) {
        // A stranger does not even see a private base, so cannot fork it.
        await expect(
          kiln.app.services.repos.fork(person.user, base.owner, base.name, {}),
        ).rejects.toMatchObject({ code: 'not_found' });
        return;
      }
      await openForkPull(kiln, git, base, person);
      const run = await oneRun(base, owner.token);
      if (!ASKS[role]) {
        expect(run.conclusion).toBeNull();
        await runner.run(await runner.next());
        return;
      }
      expect(run).toMatchObject({ status: 'completed', conclusion: 'action_required' });
      expect(await receivesNothing(runner)).toBe(true);
      // The author cannot approve their own run.
      expect((await approve(base, run.id, person.token)).status).toBe(403);
      expect(await receivesNothing(runner)).toBe(true);
      const approved = await approve(base, run.id, owner.token);
      expect(approved.status).toBe(200);
      expect(approved.body).toMatchObject({ status: 'queued', conclusion: null });
      const task = await runner.next();
      expect(Object.keys(task.secrets).sort()).toEqual(['GITEA_TOKEN', 'GITHUB_TOKEN']);
      await runner.run(task);
    },
  );
});

describe('approving', () => {
  it('answers 200 to writers, 403 to readers, 404 to outsiders and unknown runs, 409 when none is needed', async () => {
    const context = await baseWithWorkflow({ private: true, org: false });
    const { owner, base, runner } = context;
    const reader = await author('reader', context);
    const writer = await author('writer', context);
    const outsider = await kiln.make.userWithToken();
    const { forkUrl } = await openForkPull(kiln, git, base, reader);
    const run = await oneRun(base, owner.token);

    expect((await approve(base, run.id)).status).toBe(401);
    expect((await approve(base, run.id, outsider.token)).status).toBe(404);
    expect((await approve(base, run.id + 100, writer.token)).status).toBe(404);
    const refused = await approve(base, run.id, reader.token);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toEqual(expect.any(String));
    expect(await receivesNothing(runner)).toBe(true);

    const approved = await approve(base, run.id, writer.token);
    expect(approved.status).toBe(200);
    // Approving again changes nothing and says so the same way.
    expect((await approve(base, run.id, writer.token)).status).toBe(200);
    const row = await kiln.app.database.db
      .selectFrom('workflow_runs')
      .select(['approved_by', 'approved_at'])
      .where('number', '=', run.id)
      .where(
        'repo_id',
        '=',
        (await kiln.app.services.repos.get(owner.user, base.owner, base.name)).repo.id,
      )
      .executeTakeFirstOrThrow();
    expect(row.approved_by).toBe(writer.user.id);
    expect(Number(row.approved_at)).toBeGreaterThan(0);
    await runner.run(await runner.next());

    // The same author pushing again to the same pull: approved once, runs without asking.
    await git.commit(base.dir, { 'again.txt': 'again' });
    await git.ok(['push', '-q', forkUrl, 'HEAD:refs/heads/patch'], { cwd: base.dir });
    expect(await eventually(async () => (await runsOf(base, owner.token)).length === 2)).toBe(true);
    const [second] = await runsOf(base, owner.token);
    expect(second.conclusion).toBeNull();
    await runner.run(await runner.next());
    // A run that never waited cannot be approved.
    const needless = await approve(base, second.id, writer.token);
    expect(needless.status).toBe(409);
    expect(needless.body.message).toMatch(/no approval/);
  });

  it('is refused to a token without write:repository and to a job’s task token', async () => {
    const context = await baseWithWorkflow({ private: false, org: false });
    const { owner, base, runner } = context;
    // A pull from a branch of the base itself: its job holds a task token that may write.
    const ownerUrl = repoUrl(kiln.url, base.owner, base.name, {
      token: owner.token,
      as: 'password',
    });
    await git.commit(base.dir, { 'inside.txt': 'inside' });
    await git.ok(['push', '-q', ownerUrl, 'HEAD:refs/heads/inside'], { cwd: base.dir });
    await kiln.app.services.pulls.create(owner.user, base.owner, base.name, {
      title: 'Inside',
      head: 'inside',
      base: 'main',
    });
    const inside = await runner.next();
    const taskToken = inside.secrets.GITHUB_TOKEN ?? '';
    await git.ok(['checkout', '-q', 'HEAD~1'], { cwd: base.dir });
    await openForkPull(kiln, git, base, await author('stranger', context));
    expect(await eventually(async () => (await runsOf(base, owner.token)).length === 2)).toBe(true);
    const [waiting] = await runsOf(base, owner.token);
    expect(waiting?.conclusion).toBe('action_required');
    const readOnly = await kiln.make.token(owner.user, undefined, {
      scopes: ['read:repository'],
    });
    expect((await approve(base, waiting?.id, readOnly)).status).toBe(403);
    expect((await approve(base, waiting?.id, taskToken)).status).toBe(403);
    expect(await receivesNothing(runner)).toBe(true);
    await runner.run(inside);
    expect((await approve(base, waiting?.id, owner.token)).status).toBe(200);
    await runner.run(await runner.next());
  });

  it('reads the author’s access when the run is made, and asks again on another pull', async () => {
    const context = await baseWithWorkflow({ private: false, org: false });
    const { owner, base, runner } = context;
    const person = await author('writer', context);
    const { forkUrl } = await openForkPull(kiln, git, base, person);
    await oneRun(base, owner.token);
    await runner.run(await runner.next());
    // Demoted to reader: the next push to the same pull asks.
    await kiln.app.services.collaborators.put(
      owner.user,
      base.owner,
      base.name,
      person.user.handle,
      'read',
    );
    await git.commit(base.dir, { 'later.txt': 'later' });
    await git.ok(['push', '-q', forkUrl, 'HEAD:refs/heads/patch'], { cwd: base.dir });
    expect(await eventually(async () => (await runsOf(base, owner.token)).length === 2)).toBe(true);
    const [waiting] = await runsOf(base, owner.token);
    expect(waiting.conclusion).toBe('action_required');
    expect(await receivesNothing(runner)).toBe(true);
    expect((await approve(base, waiting.id, owner.token)).status).toBe(200);
    await runner.run(await runner.next());

    // A second pull of the same author asks again.
    await git.commit(base.dir, { 'other.txt': 'other' });
    await git.ok(['push', '-q', forkUrl, 'HEAD:refs/heads/other'], { cwd: base.dir });
    await kiln.app.services.pulls.create(person.user, base.owner, base.name, {
      title: 'Another',
      head: `${person.user.handle}:other`,
      base: 'main',
    });
    expect(await eventually(async () => (await runsOf(base, owner.token)).length === 3)).toBe(true);
    expect((await runsOf(base, owner.token))[0]?.conclusion).toBe('action_required');
    expect(await receivesNothing(runner)).toBe(true);
  });

  it('is enforced by FetchTask itself: a waiting run’s job marked pending is still not handed out', async () => {
    const context = await baseWithWorkflow({ private: false, org: false });
    const { owner, base, runner, label } = context;
    await openForkPull(kiln, git, base, await author('stranger', context));
    const run = await oneRun(base, owner.token);
    const { db } = kiln.app.database;
    const { repo } = await kiln.app.services.repos.get(owner.user, base.owner, base.name);
    const stored = await db
      .selectFrom('workflow_runs')
      .select('id')
      .where('repo_id', '=', repo.id)
      .where('number', '=', run.id)
      .executeTakeFirstOrThrow();
    // As if some other path had released the jobs without an approval.
    await db
      .updateTable('ci_tasks')
      .set({ status: 'pending' })
      .where('run_id', '=', stored.id)
      .execute();
    await db
      .updateTable('ci_tasks_versions')
      .set((eb) => ({ version: eb('version', '+', 1) }))
      .execute();
    const fresh = await ReplayRunner.register(kiln, { labels: [label] });
    expect(await receivesNothing(fresh)).toBe(true);
    expect(await receivesNothing(runner)).toBe(true);
    expect((await approve(base, run.id, owner.token)).status).toBe(200);
    await runner.run(await runner.next());
  });

  it('lets every waiting run of the pull request go with one approval', async () => {
    const context = await baseWithWorkflow({ private: false, org: false, workflows: 2 });
    const { owner, base, runner } = context;
    await openForkPull(kiln, git, base, await author('reader', context));
    expect(await eventually(async () => (await runsOf(base, owner.token)).length === 2)).toBe(true);
    const runs = await runsOf(base, owner.token);
    expect(runs.map((run) => run.conclusion)).toEqual(['action_required', 'action_required']);
    expect((await approve(base, runs[1]?.id, owner.token)).status).toBe(200);
    const after = await runsOf(base, owner.token);
    expect(after.map((run) => run.status)).toEqual(['queued', 'queued']);
    await runner.run(await runner.next());
    await runner.run(await runner.next());
  });

  it('asks when someone who cannot write pushes to a writer’s fork pull', async () => {
    const context = await baseWithWorkflow({ private: false, org: false });
    const { owner, base, runner } = context;
    const writer = await author('writer', context);
    const stranger = await kiln.make.userWithToken();
    await openForkPull(kiln, git, base, writer);
    await oneRun(base, owner.token);
    await runner.run(await runner.next());
    // The writer lets a stranger push to the fork's branch: the stranger's push is theirs.
    await kiln.app.services.collaborators.put(
      writer.user,
      writer.user.handle,
      base.name,
      stranger.user.handle,
      'write',
    );
    const asStranger = repoUrl(kiln.url, writer.user.handle, base.name, {
      token: stranger.token,
      as: 'password',
    });
    await git.commit(base.dir, { 'sneaky.txt': 'sneaky' });
    await git.ok(['push', '-q', asStranger, 'HEAD:refs/heads/patch'], { cwd: base.dir });
    expect(await eventually(async () => (await runsOf(base, owner.token)).length === 2)).toBe(true);
    const [pushed] = await runsOf(base, owner.token);
    expect(pushed).toMatchObject({ conclusion: 'action_required' });
    expect(await receivesNothing(runner)).toBe(true);
  });

  it('asks when a writer closes or reopens a stranger’s pull: that is no review of its code', async () => {
    const on = '{pull_request: {types: [opened, synchronize, reopened, closed]}}';
    const context = await baseWithWorkflow({ private: false, org: false, on });
    const { owner, base, runner } = context;
    await openForkPull(kiln, git, base, await author('stranger', context));
    const opened = await oneRun(base, owner.token);
    const { pulls } = kiln.app.services;
    const number = 1;
    await pulls.update(owner.user, base.owner, base.name, number, { state: 'closed' });
    await pulls.update(owner.user, base.owner, base.name, number, { state: 'open' });
    expect(await eventually(async () => (await runsOf(base, owner.token)).length === 3)).toBe(true);
    // Each change supersedes the run before it; the newest waits like the first did.
    const runs = await runsOf(base, owner.token);
    expect(runs.map((run) => run.conclusion)).toEqual([
      'action_required',
      'cancelled',
      'cancelled',
    ]);
    expect(opened.conclusion).toBe('action_required');
    expect(await receivesNothing(runner)).toBe(true);
    // One approval of the pull trusts its author: the owner's next close runs at once.
    expect((await approve(base, runs[0]?.id, owner.token)).status).toBe(200);
    await runner.run(await runner.next());
    await pulls.update(owner.user, base.owner, base.name, number, { state: 'closed' });
    expect(await eventually(async () => (await runsOf(base, owner.token)).length === 4)).toBe(true);
    expect((await runsOf(base, owner.token))[0]?.conclusion).toBeNull();
    await runner.run(await runner.next());
  });

  it('lets cancel stop a waiting run, and a re-run of it waits until approved', async () => {
    const context = await baseWithWorkflow({ private: false, org: false });
    const { owner, base, runner } = context;
    const stranger = await author('stranger', context);
    await openForkPull(kiln, git, base, stranger);
    const run = await oneRun(base, owner.token);
    const runPath = `/repos/${base.owner}/${base.name}/actions/runs/${run.id}`;
    await kiln.app.services.ciRunCancels.cancel(owner.user, base.owner, base.name, run.id);
    expect((await apiCall(kiln.url, runPath, { token: owner.token })).body).toMatchObject({
      status: 'completed',
      conclusion: 'cancelled',
    });
    const rerun = await apiCall(kiln.url, `${runPath}/rerun`, {
      method: 'POST',
      token: owner.token,
    });
    expect(rerun.status).toBe(201);
    expect(rerun.body).toMatchObject({ conclusion: 'action_required' });
    expect(await receivesNothing(runner)).toBe(true);
    expect((await approve(base, run.id, owner.token)).status).toBe(200);
    await runner.run(await runner.next());
    // Re-running the approved run does not ask again.
    const again = await apiCall(kiln.url, `${runPath}/rerun`, {
      method: 'POST',
      token: owner.token,
    });
    expect(again.body).toMatchObject({ status: 'queued' });
    await runner.run(await runner.next());
  });
});
