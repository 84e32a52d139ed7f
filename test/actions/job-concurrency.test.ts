/**
 * Job-level `concurrency:` (`jobs.<id>.concurrency`) as GitHub and Gitea run it, seen by a runner
 * through the protocol and by a client through the REST API and the run page: per repository, at
 * most one job of a group runs and one waits; a newer job replaces the waiting one; with
 * `cancel-in-progress` it cancels the running one, whose runner learns it from UpdateTask; a job
 * of another group is not held; cancelling a run frees its group; a `concurrency` that does not
 * parse fails the run with the message. Every push goes to its own branch, so that Gitea's
 * default (a new push cancels the unfinished runs of the same ref and workflow) plays no part.
 */
import { describe, expect, it } from 'vitest';
import { apiCall } from '../support/http.ts';
import { useWorld, type World } from '../support/world.ts';
import { page, signedIn } from '../web/fixtures.ts';
import {
  branchPusher,
  type ListedRun,
  listRuns,
  newerCancelsRunning,
  newestWaitingFollows,
  refOf,
} from './group-pushes.ts';
import { ReplayRunner } from './replay-runner.ts';

const REPOS = [
  'queued',
  'cancelling',
  'apart',
  'released',
  'broken',
  'variable',
  'swept',
  'rerun',
] as const;
type Repo = (typeof REPOS)[number];
let world: World<'owner', Repo>;

useWorld(
  {
    env: { SERVICE_PROTECT_ENABLED: 'false' },
    people: ['owner'],
    repos: REPOS.map((name) => ({ owner: 'owner' as const, name })),
  },
  (started) => {
    world = started;
  },
);

/** A workflow whose one job `deploy` carries `concurrency` (YAML, indented under the job). */
function workflow(label: string, concurrency: string): string {
  return `on: push\njobs:\n  deploy:\n    runs-on: ${label}\n    ${concurrency}\n    steps: [{run: ./deploy}]\n`;
}

const pusher = (repo: Repo, file: string) => branchPusher(world, repo, file);
const runs = (repo: Repo) => listRuns(world, repo);

/** The run of a branch. */
async function runOf(repo: Repo, branch: string): Promise<ListedRun> {
  const run = (await runs(repo)).find((candidate) => candidate.branch === branch);
  if (run === undefined) throw new Error(`no run for ${branch}`);
  return run;
}

/** The statuses of a run's jobs, from the REST jobs list. */
async function jobStates(repo: Repo, branch: string): Promise<string[]> {
  const { id } = await runOf(repo, branch);
  const { body } = await apiCall(
    world.kiln.url,
    `/repos/${owner()}/${repo}/actions/runs/${id}/jobs`,
    { token: world.people.owner.token },
  );
  const listed = body as { jobs: { status: string; conclusion: string | null }[] };
  return listed.jobs.map((job) => job.conclusion ?? job.status);
}

const owner = () => world.people.owner.user.handle;

describe('a job-level concurrency group without cancel-in-progress', () => {
  it('holds the second job until the first finishes, and lets only the newest waiting one follow', async () => {
    const runner = await ReplayRunner.register(world.kiln, { labels: ['job-queue-box'] });
    const push = await pusher('queued', workflow('job-queue-box', 'concurrency: deploy-prod'));
    await newestWaitingFollows(world, 'queued', runner, push, async () => {
      expect(await jobStates('queued', 'a')).toEqual(['in_progress']);
      expect(await jobStates('queued', 'b')).toEqual(['cancelled']);
      expect(await jobStates('queued', 'c')).toEqual(['waiting']);
      const browser = await signedIn(world.kiln, owner(), world.people.owner.password);
      const { id } = await runOf('queued', 'c');
      const shown = await page(browser, `/repos/${owner()}/queued/actions/runs/${id}`);
      expect(shown).toContain('Blocked');
      expect(shown).toContain('waiting for concurrency group <code>deploy-prod</code>');
    });
  });
});

describe('a job-level concurrency group with cancel-in-progress', () => {
  it('cancels the running job for the newer one; its runner learns it from UpdateTask', async () => {
    const runner = await ReplayRunner.register(world.kiln, { labels: ['job-cancel-box'] });
    const push = await pusher(
      'cancelling',
      workflow('job-cancel-box', 'concurrency: {group: deploy, cancel-in-progress: true}'),
    );
    await newerCancelsRunning(runner, push, async () => {
      expect(await jobStates('cancelling', 'a')).toEqual(['cancelled']);
      expect(await jobStates('cancelling', 'b')).toEqual(['in_progress']);
    });
  });
});

describe('job-level concurrency groups apart', () => {
  it('holds a job of the busy group but not one of another group', async () => {
    const runner = await ReplayRunner.register(world.kiln, { labels: ['job-apart-box'] });
    const twoJobs = [
      'on: push',
      'jobs:',
      '  deploy:',
      '    runs-on: job-apart-box',
      '    concurrency: deploy',
      '    steps: [{run: ./deploy}]',
      '  lint:',
      '    runs-on: job-apart-box',
      // A workflow expression, not JavaScript: a template literal would read it as its own.
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a workflow expression
      '    concurrency: lint-${{ github.ref_name }}',
      '    steps: [{run: ./lint}]',
      '',
    ].join('\n');
    const push = await pusher('apart', twoJobs);
    await push('a');
    const handed = [await runner.next(), await runner.next()];
    await push('b');
    handed.push(await runner.next());
    // b's deploy waits for a's; b's lint, in a group of its own, did not.
    expect(await runner.poll()).toBeUndefined();
    const jobOf = (task: (typeof handed)[number]) =>
      `${refOf(task)} ${(task.context as { job?: string } | undefined)?.job ?? ''}`;
    expect(handed.map(jobOf).sort()).toEqual([
      'refs/heads/a deploy',
      'refs/heads/a lint',
      'refs/heads/b lint',
    ]);
    expect(await jobStates('apart', 'b')).toEqual(['waiting', 'in_progress']);
  });
});

describe('a job-level concurrency group named by a variable', () => {
  it('reads the repository variable when the run starts', async () => {
    const runner = await ReplayRunner.register(world.kiln, { labels: ['job-vars-box'] });
    const browser = await signedIn(world.kiln, owner(), world.people.owner.password);
    const saved = await browser.post(`/repos/${owner()}/variable/settings/ci/variables`, {
      name: 'TARGET',
      value: 'production',
    });
    expect(saved.status).toBeLessThan(400);
    // Without the variable the group would be empty, which is no group: both jobs would run.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a workflow expression
    const group = 'concurrency: ${{ vars.TARGET }}';
    const push = await pusher('variable', workflow('job-vars-box', group));
    await push('a');
    await runner.next();
    await push('b');
    expect(await runner.poll()).toBeUndefined();
    expect(await jobStates('variable', 'b')).toEqual(['waiting']);
  });
});

describe('cancelling a run', () => {
  it('frees its job group for the waiting job', async () => {
    const runner = await ReplayRunner.register(world.kiln, { labels: ['job-release-box'] });
    const push = await pusher('released', workflow('job-release-box', 'concurrency: deploy'));
    await push('a');
    const first = await runner.next();
    await push('b');
    expect(await runner.poll()).toBeUndefined();
    const browser = await signedIn(world.kiln, owner(), world.people.owner.password);
    const { id } = await runOf('released', 'a');
    const cancelled = await browser.post(
      `/repos/${owner()}/released/actions/runs/${id}/cancel`,
      {},
    );
    expect(cancelled.status).toBeLessThan(400);
    expect(refOf(await runner.next())).toBe('refs/heads/b');
    expect((await runner.run(first)).cancelled).toBe(true);
  });
});

describe('a job of a group whose runner went silent', () => {
  it('frees the group when the sweep fails it', async () => {
    const runner = await ReplayRunner.register(world.kiln, { labels: ['job-sweep-box'] });
    const push = await pusher('swept', workflow('job-sweep-box', 'concurrency: deploy'));
    await push('a');
    await runner.next();
    await push('b');
    expect(await runner.poll()).toBeUndefined();
    // Far enough ahead that a's runner (and those of earlier tests) went silent past every
    // timeout.
    expect(
      await world.kiln.app.services.ciTasks.sweepZombies(Date.now() + 86_400_000),
    ).toBeGreaterThanOrEqual(1);
    expect(await jobStates('swept', 'a')).toEqual(['failure']);
    expect(refOf(await runner.next())).toBe('refs/heads/b');
  });
});

describe('re-running a job of a group', () => {
  it('waits for the group like a new job', async () => {
    const runner = await ReplayRunner.register(world.kiln, { labels: ['job-rerun-box'] });
    const push = await pusher('rerun', workflow('job-rerun-box', 'concurrency: deploy'));
    await push('a');
    await runner.run(await runner.next());
    await push('b');
    const second = await runner.next();
    const { id } = await runOf('rerun', 'a');
    const rerun = await apiCall(
      world.kiln.url,
      `/repos/${owner()}/rerun/actions/runs/${id}/rerun`,
      { method: 'POST', token: world.people.owner.token },
    );
    expect(rerun.status).toBe(201);
    expect(await runner.poll()).toBeUndefined();
    expect(await jobStates('rerun', 'a')).toEqual(['waiting']);
    await runner.run(second);
    expect(refOf(await runner.next())).toBe('refs/heads/a');
  });
});

describe('a job-level concurrency that does not parse', () => {
  it('fails the run with the message', async () => {
    const push = await pusher(
      'broken',
      workflow('job-broken-box', 'concurrency: {cancel-in-progress: true}'),
    );
    await push('a');
    const [run] = await runs('broken');
    expect(run?.state).toBe('failure');
    const browser = await signedIn(world.kiln, owner(), world.people.owner.password);
    const shown = await page(browser, `/repos/${owner()}/broken/actions/runs/${run?.id}`);
    expect(shown).toContain(
      'job &quot;deploy&quot;: &quot;concurrency&quot; needs a &quot;group&quot;',
    );
  });
});
