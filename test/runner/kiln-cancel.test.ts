/**
 * Cancelling a run from the web while `kiln runner daemon --once` runs one of its steps: the
 * step's processes are stopped within a few seconds (not left to a sleep of a minute), the
 * runner reports the task cancelled, `--once` then exits with success, and the job's page shows
 * the step as cancelled with the lines it printed.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { Browser } from '../support/http.ts';
import { KilnWorld } from './kiln-world.ts';

let world: KilnWorld;

beforeAll(async () => {
  world = await KilnWorld.start();
});
afterAll(async () => {
  await world?.close();
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('cancelling a run on kiln runner', () => {
  it('stops the running step within a few seconds and reports the task cancelled', async () => {
    const { user, password, token, full } = await world.repo();
    const pidFile = join(world.dir, 'sleep.pid');
    const workflow = `on: push
jobs:
  slow:
    runs-on: kiln-cancel
    steps:
      - run: |
          sleep 60 &
          echo $! > ${pidFile}
          echo "sleeping"
          wait $!
`;
    const daemon = world.daemon(await world.register('kiln-cancel'), ['--once']);
    await world.push(full, token, { '.gitea/workflows/slow.yml': workflow });

    const started = await eventually(
      async () => (await readFile(pidFile, 'utf8').catch(() => '')).trim() !== '',
      60_000,
    );
    expect(started, `the step did not start; the runner said: ${daemon.stderr()}`).toBe(true);
    const pid = Number((await readFile(pidFile, 'utf8')).trim());
    expect(alive(pid)).toBe(true);

    const run = await world.latestRun(full, token);
    const browser = new Browser(world.kiln.url);
    await browser.get('/login');
    expect((await browser.post('/login', { login: user.handle, password })).status).toBe(303);
    const cancelled = await browser.post(
      `/repos/${full}/actions/runs/${run.run_number}/cancel`,
      {},
    );
    expect(cancelled.status).toBe(303);

    // Generous for a loaded machine; without prompt polling the runner learns at its 5 s heartbeat.
    expect(await eventually(async () => !alive(pid), 3000)).toBe(true);
    expect(await eventually(async () => /task \d+: cancelled/.test(daemon.stderr()), 3000)).toBe(
      true,
    );
    expect(await daemon.exit).toBe(0);
    const after = await world.latestRun(full, token);
    expect(after).toMatchObject({ status: 'completed', conclusion: 'cancelled' });

    // The job's page shows the step that was cut short as cancelled, with what it printed.
    const jobs = JSON.parse(
      (await world.api(full, token, `/actions/runs/${run.run_number}/jobs`)).text,
    ) as { jobs: { id: number }[] };
    const response = await browser.get(
      `/repos/${full}/actions/runs/${run.run_number}/jobs/${jobs.jobs[0]?.id}`,
    );
    const body = await response.text();
    const steps = [
      ...body.matchAll(/<details[^>]*data-step-status="([a-z]+)"[\s\S]*?<\/details>/g),
    ];
    const cut = steps.find((step) => step[0].includes('sleeping'));
    expect(cut?.[1], body.slice(0, 3000)).toBe('cancelled');
    expect(cut?.[0]).not.toContain('No output');
    expect(steps.some((step) => step[1] === 'running')).toBe(false);
  }, 120_000);
});
