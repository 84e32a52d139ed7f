/**
 * An artifact passed between two jobs of one run by `kiln runner`: the first job's `run:` step
 * uploads files with the pipeline-protocol client (`@actions/artifact` 1.1.2, what
 * upload-artifact@v3 bundles), the second, which needs it, downloads them with the same client
 * and checks them, each with nothing but the environment the runner gives its steps. Then the
 * same with the v4 client (`@actions/artifact` 2.3.2, what upload-artifact@v4 bundles), which
 * finds its run and job in the runtime token the runner passes on.
 */
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { KilnWorld } from './kiln-world.ts';

const CLIENT = resolve('node_modules/artifact-v1');
const CLIENT_V4 = resolve('node_modules/@actions/artifact');

/** The same hand-off with the v4 client; its GHES check passes on a `*.localhost` name only. */
const WORKFLOW_V4 = `name: pass-v4
on: push
jobs:
  make:
    runs-on: kiln-artifacts
    steps:
      - run: |
          mkdir -p out && echo "v4 from $GITHUB_JOB" > out/note.txt
          GITHUB_SERVER_URL=http://kiln.localhost node -e "
            const { DefaultArtifactClient } = require('${CLIENT_V4}');
            new DefaultArtifactClient().uploadArtifact('handoff-v4', ['out/note.txt'], 'out')
              .catch((e) => { console.error(e); process.exit(1); });
          "
  use:
    needs: make
    runs-on: kiln-artifacts
    steps:
      - run: |
          GITHUB_SERVER_URL=http://kiln.localhost node -e "
            const { DefaultArtifactClient } = require('${CLIENT_V4}');
            const client = new DefaultArtifactClient();
            client.getArtifact('handoff-v4')
              .then(({ artifact }) => client.downloadArtifact(artifact.id, { path: 'got' }))
              .catch((e) => { console.error(e); process.exit(1); });
          "
          grep -qx "v4 from make" got/note.txt
          echo "v4 handoff checked"
`;

const WORKFLOW = `name: pass
on: push
jobs:
  make:
    runs-on: kiln-artifacts
    steps:
      - run: |
          mkdir -p out/deep
          echo "made by $GITHUB_JOB" > out/note.txt
          seq 1 200000 > out/deep/numbers.txt
          node -e "
            const client = require('${CLIENT}').create();
            client.uploadArtifact('handoff', ['out/note.txt', 'out/deep/numbers.txt'], 'out')
              .then((r) => { if (r.failedItems.length) process.exit(1); });
          "
  use:
    needs: make
    runs-on: kiln-artifacts
    steps:
      - run: |
          node -e "
            require('${CLIENT}').create().downloadArtifact('handoff', 'got')
              .catch((e) => { console.error(e); process.exit(1); });
          "
          grep -qx "made by make" got/note.txt
          test "$(tail -n 1 got/deep/numbers.txt)" = 200000
          echo "handoff checked"
`;

let world: KilnWorld;
beforeAll(async () => {
  world = await KilnWorld.start();
});
afterAll(async () => {
  await world?.close();
});

describe('artifacts with kiln runner', () => {
  it.each([
    ['pipeline (v3)', 'pass.yml', WORKFLOW, 'handoff'],
    ['v4', 'pass-v4.yml', WORKFLOW_V4, 'handoff-v4'],
  ])(
    'hands an artifact from one job to the next with the %s client',
    async (_, file, workflow, name) => {
      const { full, token } = await world.repo();
      const registration = await world.register(
        'kiln-artifacts',
        join(world.dir, `${name}.runner`),
      );
      world.daemon(registration);
      await world.push(full, token, { [`.gitea/workflows/${file}`]: workflow });
      const done = await eventually(async () => {
        const run = await world.latestRun(full, token);
        return run?.status === 'completed';
      }, 90_000);
      expect(done).toBe(true);
      const run = await world.latestRun(full, token);
      const jobs = JSON.parse((await world.api(full, token, `/actions/runs/${run?.id}/jobs`)).text);
      const logs = await Promise.all(
        jobs.jobs.map(
          async (job: { id: number }) =>
            (await world.api(full, token, `/actions/jobs/${job.id}/logs`)).text,
        ),
      );
      expect(run?.conclusion, logs.join('\n')).toBe('success');
      expect(logs.join('\n')).toContain(`${name === 'handoff' ? '' : 'v4 '}handoff checked`);
      const listed = JSON.parse(
        (await world.api(full, token, `/actions/runs/${run?.id}/artifacts`)).text,
      );
      expect(listed.artifacts.map((a: { name: string }) => a.name)).toEqual([name]);
    },
    120_000,
  );
});
