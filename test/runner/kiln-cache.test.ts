/**
 * A cache saved by one run of `kiln runner` is restored by the next, each a real part: the
 * runner daemon, the server, pushes with git, and a step that runs the toolkit's own cache
 * client (`@actions/cache`, what `actions/cache@v4` runs) with only what the runner gave it
 * (`ACTIONS_CACHE_URL`, `ACTIONS_RUNTIME_TOKEN`).
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { repoUrl } from '../support/git.ts';
import type { Json } from '../support/http.ts';
import { KilnWorld } from './kiln-world.ts';

let world: KilnWorld;
beforeAll(async () => {
  world = await KilnWorld.start();
});
afterAll(async () => {
  await world?.close();
});

const CLIENT = createRequire(import.meta.url).resolve('@actions/cache');

/** Restores `deps` under its key, or makes and saves it: what a workflow's cache step does. */
const SCRIPT = `const fs = require('node:fs');
const cache = require(${JSON.stringify(CLIENT)});
(async () => {
  const key = 'deps-' + process.env.RUNNER_OS;
  const hit = await cache.restoreCache(['deps'], key, ['deps-']);
  if (hit) {
    console.log('restored ' + hit + ': ' + fs.readFileSync('deps/made-by.txt', 'utf8'));
    return;
  }
  fs.mkdirSync('deps', { recursive: true });
  fs.writeFileSync('deps/made-by.txt', 'run ' + process.env.GITHUB_RUN_NUMBER);
  console.log('saved as ' + (await cache.saveCache(['deps'], key)));
})().catch((error) => { console.error(error); process.exit(1); });
`;

const WORKFLOW = `on: push
jobs:
  build:
    runs-on: kiln-cache
    steps:
      - run: |
          cat > "$RUNNER_TEMP/cache.js" <<'SCRIPT'
${SCRIPT.replace(/^/gm, '          ')}
          SCRIPT
          node "$RUNNER_TEMP/cache.js"
`;

/** The log of the newest run's one job once the run is over, with its conclusion. */
async function nextRunLog(full: string, token: string, after: number) {
  let run: Json | undefined;
  const done = await eventually(async () => {
    run = await world.latestRun(full, token);
    return Number(run?.run_number) > after && run?.status === 'completed';
  }, 90_000);
  expect(done, 'the run did not complete').toBe(true);
  const jobs = JSON.parse((await world.api(full, token, `/actions/runs/${run?.id}/jobs`)).text);
  const job = (jobs as { jobs: Json[] }).jobs[0];
  const log = await world.api(full, token, `/actions/jobs/${job?.id}/logs`);
  return { conclusion: run?.conclusion, number: Number(run?.run_number), log: log.text };
}

describe('actions/cache on kiln runner', () => {
  it('restores in the next run what the previous run saved', async () => {
    const { token, full } = await world.repo();
    world.daemon(await world.register('kiln-cache'));
    await world.push(full, token, { '.gitea/workflows/cache.yml': WORKFLOW, 'a.txt': '1' });
    const first = await nextRunLog(full, token, 0);
    expect(first.conclusion, first.log).toBe('success');
    expect(first.log).toMatch(/saved as \d+/);

    // Another history, forced over the first: a push of main all the same.
    const [owner = '', name = ''] = full.split('/');
    const work = await world.git.init();
    await world.git.commit(work, { '.gitea/workflows/cache.yml': WORKFLOW, 'a.txt': '2' });
    const url = repoUrl(world.kiln.url, owner, name, { token, as: 'password' });
    await world.git.ok(['push', '-q', url, '+main:main'], { cwd: work });
    const second = await nextRunLog(full, token, first.number);
    expect(second.conclusion, second.log).toBe('success');
    expect(second.log).toContain(`restored deps-Linux: run ${first.number}`);

    const listed = JSON.parse((await world.api(full, token, '/actions/caches')).text);
    expect(listed).toMatchObject({
      total_count: 1,
      actions_caches: [{ key: 'deps-Linux', ref: 'refs/heads/main' }],
    });
  }, 200_000);
});
