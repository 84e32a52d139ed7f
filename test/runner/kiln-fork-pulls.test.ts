/**
 * A runner that runs jobs unisolated says so when it starts and runs nothing of a job for a pull
 * request from a fork — even one from a person who may write to the base, whose pull reaches
 * runners without approval — while it runs the base repository's own jobs as before.
 */
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openForkPull } from '../actions/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { repoUrl } from '../support/git.ts';
import type { Json } from '../support/http.ts';
import { KilnWorld } from './kiln-world.ts';
import { OTHER_ACCOUNTS_REACH_US } from './other-accounts.ts';

let world: KilnWorld;

beforeAll(async () => {
  world = await KilnWorld.start();
});
afterAll(async () => {
  await world?.close();
});

const LABEL = 'unisolated';
const WORKFLOW = `on: [push, pull_request]
jobs:
  check:
    runs-on: ${LABEL}
    steps:
      - run: echo "the step ran for $GITHUB_EVENT_NAME"
`;

async function completed(full: string, token: string, event: string, said: () => string) {
  let run: Json | undefined;
  const done = await eventually(async () => {
    run = await world.latestRun(full, token);
    return run?.event === event && run.status === 'completed';
  }, 90_000);
  expect(done, `no completed ${event} run; the runner said: ${said()}`).toBe(true);
  const { jobs } = JSON.parse((await world.api(full, token, `/actions/runs/${run?.id}/jobs`)).text);
  const log = (await world.api(full, token, `/actions/jobs/${jobs[0].id}/logs`)).text;
  return { run: run as Json, log };
}

describe('an unisolated runner', () => {
  it("refuses a fork pull's job with one line saying why, and runs the base branch's", async () => {
    const { user, token, full } = await world.repo();
    const [owner = '', name = ''] = full.split('/');
    const forker = await world.kiln.make.userWithToken();
    await world.kiln.app.services.collaborators.put(user, owner, name, forker.user.handle, 'write');
    const daemon = world.daemon(await world.register(LABEL), ['--isolation', 'none']);

    const work = await world.git.init();
    await world.git.commit(work, { '.gitea/workflows/ci.yml': WORKFLOW }, 'add CI');
    const url = repoUrl(world.kiln.url, owner, name, { token, as: 'password' });
    await world.git.ok(['push', '-q', url, 'main'], { cwd: work });
    const push = await completed(full, token, 'push', daemon.stderr);
    expect(push.run.conclusion, push.log).toBe('success');
    expect(push.log).toContain('the step ran for push');
    expect(daemon.stderr()).toMatch(
      /declared runner "unisolated" .*; jobs run unisolated: --isolation none; pull requests from forks are refused/,
    );

    await openForkPull(world.kiln, world.git, { owner, name, dir: work }, forker);
    const pull = await completed(full, token, 'pull_request', daemon.stderr);
    expect(pull.run.conclusion, pull.log).toBe('failure');
    expect(pull.log).not.toContain('the step ran');
    const refusals = pull.log
      .split('\n')
      .filter((line) => line.includes('pull request from a fork'));
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toContain('runs jobs unisolated (--isolation none)');
    expect(refusals[0]).toContain('apt-get install bubblewrap');
  }, 150_000);
});

describe('a runner that can isolate nothing', () => {
  it.skipIf(!(process.getuid?.() === 0 && OTHER_ACCOUNTS_REACH_US))(
    'says so when it starts: not root, no bubblewrap',
    async () => {
      const base = await mkdtemp(join(tmpdir(), 'kiln-unisolated-'));
      try {
        const file = await world.register('no-sandbox', join(base, '.runner'));
        await chown(base, 4242, 4242);
        await chown(file, 4242, 4242);
        const daemon = world.daemon(file, ['--isolation', 'auto'], {
          as: { uid: 4242, gid: 4242 },
          workdir: join(base, 'work'),
          path: '/nowhere',
        });
        const said = await eventually(
          async () => daemon.stderr().includes('declared runner'),
          30_000,
        );
        expect(said, daemon.stderr()).toBe(true);
        expect(daemon.stderr()).toContain(
          'jobs run unisolated: not started as root and bwrap is not installed (Debian: apt-get install bubblewrap); pull requests from forks are refused',
        );
        daemon.child.kill('SIGTERM');
        await daemon.exit;
      } finally {
        await rm(base, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
