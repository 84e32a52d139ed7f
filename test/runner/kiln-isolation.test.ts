/**
 * A job on `kiln runner` cannot get at the runner's credentials, in each isolation the daemon can
 * choose: as root with jobs under another account (`user`), as root with the account and a
 * bwrap sandbox (`auto`), as an unprivileged account in a sandbox (`bwrap`). A job searching
 * every file and every process it can see finds neither the token nor (outside `user`, where the
 * daemon's command line stays visible) the registration file's path, while a real workflow
 * (a checkout action fetching with the task token, GITHUB_ENV, GITHUB_OUTPUT, a local composite
 * action) still works and a cancelled step is stopped. Unisolated (`none`) the same search finds
 * the token: the search can fail. (kiln-fork-pulls.test.ts: what such a runner refuses.)
 */
import { chmod, chown, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRepo } from '../git/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { Browser, type Json } from '../support/http.ts';
import { ACTION_YML, INDEX_JS } from './checkout-like.ts';
import { findings, SEARCH_JS } from './credential-search.ts';
import { KilnWorld } from './kiln-world.ts';
import { OTHER_ACCOUNTS_REACH_US } from './other-accounts.ts';

/** Isolation needs root here (one mode starts the daemon as another account). */
const CAN_ISOLATE = process.getuid?.() === 0 && OTHER_ACCOUNTS_REACH_US;

/** The unprivileged account the `bwrap` daemon runs as (no passwd entry needed). */
const DAEMON_ACCOUNT = { uid: 4242, gid: 4242 };
const NOBODY = 65534;

type Mode = {
  readonly isolation: 'user' | 'auto' | 'bwrap' | 'none';
  readonly as?: { uid: number; gid: number };
  /** The uid steps run as. */
  readonly jobUid: number;
  /** Whether the registration file's path may show (the daemon's cmdline, another uid). */
  readonly pathShows: boolean;
};

const ISOLATED: readonly Mode[] = [
  { isolation: 'user', jobUid: NOBODY, pathShows: true },
  { isolation: 'auto', jobUid: NOBODY, pathShows: false },
  { isolation: 'bwrap', as: DAEMON_ACCOUNT, jobUid: DAEMON_ACCOUNT.uid, pathShows: false },
];

let world: KilnWorld;
const made: string[] = [];

beforeAll(async () => {
  world = await KilnWorld.start();
});
afterAll(async () => {
  await world?.close();
  for (const dir of made) await rm(dir, { recursive: true, force: true });
});

const reverse = (text: string) => [...text].reverse().join('');

/**
 * A runner for `mode` registered in a directory of its own that other accounts may pass through
 * (so that only the file's own mode guards it), its work directory beside it.
 */
async function runnerFor(mode: Mode, label: string) {
  const base = await mkdtemp(join(tmpdir(), 'kiln-isolation-'));
  made.push(base);
  await chmod(base, 0o755);
  const file = await world.register(label, join(base, '.runner'));
  const workdir = join(base, 'work');
  if (mode.as) {
    await chown(base, mode.as.uid, mode.as.gid);
    await chown(file, mode.as.uid, mode.as.gid);
  }
  const state = JSON.parse(await readFile(file, 'utf8')) as { token: string };
  return { file, workdir, token: state.token };
}

function start(mode: Mode, runner: { file: string; workdir: string }, extra: string[] = []) {
  return world.daemon(runner.file, ['--isolation', mode.isolation, ...extra], {
    workdir: runner.workdir,
    ...(mode.as ? { as: mode.as } : {}),
  });
}

async function completedRun(full: string, token: string, said: () => string): Promise<Json> {
  let run: Json | undefined;
  const done = await eventually(async () => {
    run = await world.latestRun(full, token);
    return run?.status === 'completed';
  }, 150_000);
  expect(done, `the run did not complete; the runner said: ${said()}`).toBe(true);
  return run as Json;
}

async function jobLogs(full: string, token: string, run: Json): Promise<Record<string, Json>> {
  const { jobs } = JSON.parse((await world.api(full, token, `/actions/runs/${run.id}/jobs`)).text);
  const logs: Record<string, Json> = {};
  for (const job of jobs as Json[]) {
    const log = (await world.api(full, token, `/actions/jobs/${job.id}/logs`)).text;
    logs[String(job.name)] = { conclusion: job.conclusion, log };
  }
  return logs;
}

function searchWorkflow(
  label: string,
  needles: { token: string; path: string },
  actionsAt: string,
) {
  const script = SEARCH_JS.replaceAll('\n', '\n          ');
  return `on: push
jobs:
  search:
    runs-on: ${label}
    timeout-minutes: 3
    steps:
      - shell: node
        env:
          NEEDLE_TOKEN: "${reverse(needles.token)}"
          NEEDLE_PATH: "${reverse(needles.path)}"
        run: |
          ${script}
  works:
    runs-on: ${label}
    needs: search
    if: always()
    steps:
      - uses: ${actionsAt}/checkout-like@v1
      - id: first
        run: |
          echo "GREETING=hello from GITHUB_ENV" >> "$GITHUB_ENV"
          echo "answer=42" >> "$GITHUB_OUTPUT"
          echo "running as uid $(id -u) with home $HOME"
      - run: |
          echo "greeting: $GREETING, answer: \${{ steps.first.outputs.answer }}"
          echo "the file says $(cat hello.txt)"
      - uses: ./greet
`;
}

async function searchAndWork(mode: Mode, label: string) {
  const { user, token, full } = await world.repo();
  await makeRepo(world.kiln, user, { name: 'checkout-like' });
  await world.push(
    `${user.handle}/checkout-like`,
    token,
    { 'action.yml': ACTION_YML, 'index.js': INDEX_JS },
    ['main:refs/tags/v1'],
  );
  const runner = await runnerFor(mode, label);
  const daemon = start(mode, runner);
  const workflow = searchWorkflow(
    label,
    { token: runner.token, path: runner.file },
    `${world.kiln.url}/${user.handle}`,
  );
  const sha = await world.push(full, token, {
    '.gitea/workflows/ci.yml': workflow,
    'hello.txt': 'checked out',
    'greet/action.yml': `runs:
  using: composite
  steps:
    - run: echo "a composite step says hi"
      shell: bash
`,
  });
  const run = await completedRun(full, token, daemon.stderr);
  const logs = await jobLogs(full, token, run);
  return { daemon, logs, sha, runner };
}

describe('a job looking for the credentials of the runner that runs it', () => {
  for (const mode of ISOLATED) {
    it.skipIf(!CAN_ISOLATE)(
      `finds nothing with --isolation ${mode.isolation}, and a real workflow works`,
      async () => {
        const { daemon, logs, sha } = await searchAndWork(mode, `iso-${mode.isolation}`);
        expect(daemon.stderr()).toMatch(/declared runner .*; jobs run as /);
        const search = String(logs.search?.log);
        expect(search, search).toMatch(/SEARCHED files=[1-9]\d* complete=\w+ pids=[1-9]/);
        const hits = findings(search);
        expect(
          hits.filter((hit) => hit.startsWith('token')),
          search,
        ).toEqual([]);
        const paths = hits.filter((hit) => hit.startsWith('path'));
        if (mode.pathShows) {
          for (const hit of paths) expect(hit).toMatch(/^path in \/proc\/\d+\/cmdline$/);
        } else {
          expect(paths, search).toEqual([]);
          // In its sandbox a step sees the sandbox's init and itself: no daemon, no other job.
          expect(Number(/pids=(\d+)/.exec(search)?.[1])).toBeLessThanOrEqual(2);
        }
        const works = logs.works as Json;
        expect(works.conclusion, String(works.log)).toBe('success');
        expect(works.log).toContain(`checked out ${sha}`);
        expect(works.log).toContain('greeting: hello from GITHUB_ENV, answer: 42');
        expect(works.log).toContain('the file says checked out');
        expect(works.log).toContain('a composite step says hi');
        expect(works.log).toMatch(new RegExp(`running as uid ${mode.jobUid} with home /.*/home`));
      },
      240_000,
    );
  }

  it('finds the token when the runner runs jobs unisolated', async () => {
    const mode: Mode = { isolation: 'none', jobUid: 0, pathShows: true };
    const { daemon, logs } = await searchAndWork(mode, 'iso-none');
    expect(daemon.stderr()).toContain('jobs run unisolated: --isolation none');
    const hits = findings(String(logs.search?.log));
    expect(hits).toContain('token in the registration file');
  }, 240_000);
});

/** Pids whose command line holds `text`, as root sees them. */
async function processesWith(text: string): Promise<number[]> {
  const pids: number[] = [];
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.replaceAll('\0', ' ').includes(text)) pids.push(Number(pid));
  }
  return pids;
}

describe.skipIf(!CAN_ISOLATE)('cancelling an isolated job', () => {
  for (const mode of [ISOLATED[0], ISOLATED[2]] as Mode[]) {
    it(`stops the step's processes with --isolation ${mode.isolation}`, async () => {
      const { user, password, token, full } = await world.repo();
      const label = `cancel-${mode.isolation}`;
      const seconds = 600 + Math.floor(Math.random() * 300);
      const runner = await runnerFor(mode, label);
      const daemon = start(mode, runner, ['--once']);
      await world.push(full, token, {
        '.gitea/workflows/slow.yml': `on: push
jobs:
  slow:
    runs-on: ${label}
    steps:
      - run: sleep ${seconds} & wait
`,
      });
      const sleeping = await eventually(
        async () => (await processesWith(`sleep ${seconds}`)).length > 0,
        90_000,
      );
      expect(sleeping, `the step did not start; the runner said: ${daemon.stderr()}`).toBe(true);
      const run = await world.latestRun(full, token);
      const browser = new Browser(world.kiln.url);
      await browser.get('/login');
      expect((await browser.post('/login', { login: user.handle, password })).status).toBe(303);
      const cancel = await browser.post(
        `/repos/${full}/actions/runs/${run?.run_number}/cancel`,
        {},
      );
      expect(cancel.status).toBe(303);
      expect(
        await eventually(async () => (await processesWith(`sleep ${seconds}`)).length === 0, 8000),
      ).toBe(true);
      expect(await daemon.exit).toBe(0);
      expect(await world.latestRun(full, token)).toMatchObject({ conclusion: 'cancelled' });
    }, 180_000);
  }
});
