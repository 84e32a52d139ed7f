/**
 * Who may start, re-run and cancel the CI of a private repository, over REST and the Actions
 * page's forms: people outside it get 404 (they may not learn that it exists), a REST call without
 * a token 401 as for any repository, readers 403 as Gitea answers them, and nothing a refused
 * request asks for happens.
 */
import { describe, expect, it } from 'vitest';
import { repoUrl } from '../support/git.ts';
import { apiCall } from '../support/http.ts';
import { useWorld, type World } from '../support/world.ts';
import { signedIn } from '../web/fixtures.ts';
import { ReplayRunner } from './replay-runner.ts';

const WORKFLOW = `on: [push, workflow_dispatch]
jobs:
  build:
    runs-on: outsider-box
    steps: [{run: make}]
`;

let world: World<'owner' | 'reader' | 'outsider', 'hidden-ci'>;
let base: string;
let jobId: number;

useWorld(
  {
    env: { SERVICE_PROTECT_ENABLED: 'false' },
    people: ['owner', 'reader', 'outsider'],
    repos: [{ owner: 'owner', name: 'hidden-ci', private: true }],
  },
  async (started) => {
    world = started;
    const { kiln, git, people } = world;
    const owner = people.owner;
    base = `/repos/${owner.user.handle}/hidden-ci/actions`;
    await kiln.app.services.collaborators.put(
      owner.user,
      owner.user.handle,
      'hidden-ci',
      people.reader.user.handle,
      'read',
    );
    const dir = await git.init();
    await git.commit(dir, { '.gitea/workflows/ci.yml': WORKFLOW });
    const url = repoUrl(kiln.url, owner.user.handle, 'hidden-ci', {
      token: owner.token,
      as: 'password',
    });
    await git.ok(['push', '-q', url, 'HEAD:refs/heads/main'], { cwd: dir });
    // One finished run, so that every refused request below is one a writer could make.
    const runner = await ReplayRunner.register(kiln, { labels: ['outsider-box'] });
    const task = await runner.next();
    await runner.run(task);
    jobId = Number(task.id);
  },
);

/** The runs of the repository as its owner sees them: what a refused request must not change. */
async function runState(): Promise<string> {
  const { body } = await apiCall(world.kiln.url, `${base}/runs`, {
    token: world.people.owner.token,
  });
  return JSON.stringify(body);
}

const API_CALLS: readonly (readonly [string, Record<string, unknown> | undefined])[] = [
  ['/runs/1/rerun', undefined],
  ['/runs/1/rerun-failed-jobs', undefined],
  ['/runs/1/cancel', undefined],
  ['/runs/1/jobs/JOB/rerun', undefined],
  ['/workflows/ci.yml/dispatches', { ref: 'main' }],
];

describe('the Actions REST routes that start or re-run work', () => {
  it('answer 404 to outsiders, 401 without a token, 403 to readers, and change nothing', async () => {
    const before = await runState();
    for (const [tail, body] of API_CALLS) {
      const path = `${base}${tail.replace('JOB', String(jobId))}`;
      const as = (token: string | undefined) =>
        apiCall(world.kiln.url, path, {
          method: 'POST',
          ...(token === undefined ? {} : { token }),
          ...(body === undefined ? {} : { body }),
        });
      expect((await as(world.people.outsider.token)).status, `outsider ${tail}`).toBe(404);
      // Without a token Gitea asks for one first, whether or not the repository exists.
      expect((await as(undefined)).status, `anonymous ${tail}`).toBe(401);
      const ghost = await apiCall(world.kiln.url, path.replace('hidden-ci', 'no-such-repo'), {
        method: 'POST',
        ...(body === undefined ? {} : { body }),
      });
      expect(ghost.status, `anonymous ${tail} on a missing repository`).toBe(401);
      expect((await as(world.people.reader.token)).status, `reader ${tail}`).toBe(403);
    }
    expect(await runState()).toBe(before);
  });
});

describe('the Actions page forms that start, re-run or cancel work', () => {
  it('answer 404 to outsiders, 403 to readers, and change nothing', async () => {
    const { kiln, people } = world;
    const outsider = await signedIn(kiln, people.outsider.user.handle, people.outsider.password);
    const reader = await signedIn(kiln, people.reader.user.handle, people.reader.password);
    const before = await runState();
    for (const [tail, fields] of [
      ['/runs/1/cancel', {}],
      ['/runs/1/rerun', {}],
      ['/workflows/ci.yml/dispatch', { ref: 'main' }],
    ] as const) {
      expect((await outsider.post(`${base}${tail}`, fields)).status, `outsider ${tail}`).toBe(404);
      expect((await reader.post(`${base}${tail}`, fields)).status, `reader ${tail}`).toBe(403);
    }
    expect(await runState()).toBe(before);
  });
});
