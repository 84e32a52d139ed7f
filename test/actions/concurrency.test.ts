/**
 * `concurrency:` groups as GitHub runs them, seen by a runner through the protocol and by a
 * client through the runs API: at most one run of a group runs and one waits; without
 * `cancel-in-progress` a newer run replaces the waiting one (which is cancelled) and starts when
 * the running one ends; with it (a boolean or an expression over `github`) the newer run cancels
 * the unfinished ones. Every push goes to its own branch, so that Gitea's default (a new push
 * cancels the unfinished runs of the same ref and workflow) plays no part.
 */
import { describe, expect, it } from 'vitest';
import { useWorld, type World } from '../support/world.ts';
import {
  branchPusher,
  listRuns,
  newerCancelsRunning,
  newestWaitingFollows,
  refOf,
} from './group-pushes.ts';
import { ReplayRunner } from './replay-runner.ts';

let world: World<'owner', 'queued' | 'cancelling' | 'expressed'>;

useWorld(
  {
    env: { SERVICE_PROTECT_ENABLED: 'false' },
    people: ['owner'],
    repos: [
      { owner: 'owner', name: 'queued' },
      { owner: 'owner', name: 'cancelling' },
      { owner: 'owner', name: 'expressed' },
    ],
  },
  (started) => {
    world = started;
  },
);

function workflow(label: string, concurrency: string): string {
  return `on: push\n${concurrency}\njobs:\n  deploy:\n    runs-on: ${label}\n    steps: [{run: ./deploy}]\n`;
}

async function pusher(repo: string, file: string) {
  return branchPusher(world, repo, file);
}

/** Each run's branch and its status or conclusion, newest first, from the runs API. */
async function runs(repo: string): Promise<[string, string][]> {
  return (await listRuns(world, repo)).map((run) => [run.branch, run.state]);
}

describe('a concurrency group without cancel-in-progress', () => {
  it('runs one run at a time and lets only the newest waiting one follow', async () => {
    const runner = await ReplayRunner.register(world.kiln, { labels: ['queue-box'] });
    const push = await pusher('queued', workflow('queue-box', 'concurrency: deploy-prod'));
    await newestWaitingFollows(world, 'queued', runner, push, async () => {
      expect(await runs('queued')).toEqual([
        ['c', 'waiting'],
        ['b', 'cancelled'],
        ['a', 'in_progress'],
      ]);
    });
  });
});

describe('a concurrency group with cancel-in-progress', () => {
  it('cancels the running run for the newer one', async () => {
    const runner = await ReplayRunner.register(world.kiln, { labels: ['cancel-box'] });
    const push = await pusher(
      'cancelling',
      workflow('cancel-box', 'concurrency: {group: deploy, cancel-in-progress: true}'),
    );
    await newerCancelsRunning(runner, push, async () => {
      expect(await runs('cancelling')).toEqual([
        ['b', 'in_progress'],
        ['a', 'cancelled'],
      ]);
    });
  });

  it('evaluates group and cancel-in-progress as expressions over github', async () => {
    const runner = await ReplayRunner.register(world.kiln, { labels: ['expr-box'] });
    // Workflow expressions, not JavaScript: a template literal would read them as its own.
    const concurrency = [
      'concurrency:',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a workflow expression
      '  group: deploy-${{ github.event_name }}',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a workflow expression
      "  cancel-in-progress: ${{ github.ref == 'refs/heads/urgent' }}",
    ].join('\n');
    const push = await pusher('expressed', workflow('expr-box', concurrency));
    await push('a');
    const first = await runner.next();
    await push('b');
    expect(await runner.poll()).toBeUndefined();
    await push('urgent');
    expect(await runs('expressed')).toEqual([
      ['urgent', 'queued'],
      ['b', 'cancelled'],
      ['a', 'cancelled'],
    ]);
    expect((await runner.run(first)).cancelled).toBe(true);
    expect(refOf(await runner.next())).toBe('refs/heads/urgent');
  });
});
