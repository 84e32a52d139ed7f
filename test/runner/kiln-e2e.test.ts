/**
 * The built-in runner against Kiln itself, each a real part: `kiln runner register` and
 * `kiln runner daemon` processes, a Kiln server, a workflow pushed with git. The run is read back
 * through the Actions REST API a user would call: both jobs succeed, a job output crosses `needs`,
 * the repository secret is masked in the stored log, and the task token clones the repository.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR } from '../../src/domain/runners/runner.policy.ts';
import { makeRepo } from '../git/fixtures.ts';
import { MAIN, runCli } from '../support/cli.ts';
import { eventually } from '../support/eventually.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const SECRET = 'hunter2-e2e-value';

const WORKFLOW = `name: e2e
on: push
jobs:
  build:
    runs-on: kiln-e2e
    outputs:
      greeting: \${{ steps.hello.outputs.greeting }}
    steps:
      - id: hello
        run: |
          echo "greeting=hello from $GITHUB_REPOSITORY" >> "$GITHUB_OUTPUT"
          echo "the secret is \${{ secrets.DEPLOY_KEY }}"
          echo "building $GITHUB_SHA"
      - name: clone with the task token
        run: |
          host="\${GITHUB_SERVER_URL#http://}"
          git clone -q "http://ci:\${{ secrets.GITHUB_TOKEN }}@$host/$GITHUB_REPOSITORY.git" src
          test -f src/.gitea/workflows/e2e.yml
          echo "cloned $(git -C src rev-parse HEAD)"
  ship:
    needs: build
    runs-on: kiln-e2e
    steps:
      - run: echo "shipping \${{ needs.build.outputs.greeting }}"
`;

let kiln: TestServer;
let git: GitClient;
let dir: string;
let daemon: ChildProcess | undefined;
let daemonErr = '';

beforeAll(async () => {
  kiln = await startTestServer({ SERVICE_SECRET_KEY: 'e2e secret key for CI secrets' });
  git = await GitClient.create();
  dir = await mkdtemp(join(tmpdir(), 'kiln-e2e-runner-'));
});
afterAll(async () => {
  if (daemon && daemon.exitCode === null) {
    daemon.kill('SIGTERM');
    await new Promise((resolve) => daemon?.once('close', resolve));
  }
  await git?.dispose();
  await kiln?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

type Json = Record<string, unknown>;

describe('kiln runner with Kiln', () => {
  it('runs a pushed workflow end to end', async () => {
    const { user, token } = await kiln.make.userWithToken();
    const { name } = await makeRepo(kiln, user);
    const full = `${user.handle}/${name}`;
    const repoId = (
      await kiln.app.database.db
        .selectFrom('repositories')
        .select('id')
        .where('name', '=', name)
        .where('owner_id', '=', user.id)
        .executeTakeFirstOrThrow()
    ).id;
    await kiln.app.services.ciSecrets.put({ repoId, isRepoAdmin: true }, 'DEPLOY_KEY', SECRET);

    const registration = await kiln.app.services.runnerAdmin.createToken(OPERATOR, {
      kind: 'instance',
    });
    const file = join(dir, '.runner');
    const register = await runCli([
      'runner',
      'register',
      '--instance',
      kiln.url,
      '--token',
      registration.token,
      '--name',
      'e2e',
      '--labels',
      'kiln-e2e',
      '--file',
      file,
    ]);
    expect(register.code, register.stderr).toBe(0);
    daemon = spawn(
      process.execPath,
      [
        MAIN,
        'runner',
        'daemon',
        '--file',
        file,
        '--workdir',
        join(dir, 'work'),
        '--isolation',
        'none',
      ],
      {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    daemon.stderr?.on('data', (chunk) => {
      daemonErr += chunk;
    });

    const work = await git.init();
    const sha = await git.commit(work, { '.gitea/workflows/e2e.yml': WORKFLOW }, 'add CI');
    await git.ok(
      ['push', '-q', repoUrl(kiln.url, user.handle, name, { token, as: 'password' }), 'main'],
      {
        cwd: work,
      },
    );

    const api = async (path: string) => {
      const response = await fetch(`${kiln.url}/api/v1/repos/${full}${path}`, {
        headers: { authorization: `token ${token}` },
      });
      return { status: response.status, text: await response.text() };
    };
    let run: Json | undefined;
    const completed = await eventually(async () => {
      const runs = JSON.parse((await api('/actions/runs')).text) as { workflow_runs: Json[] };
      run = runs.workflow_runs[0];
      return run?.status === 'completed';
    }, 90_000);
    expect(completed, `the run did not complete; the runner said: ${daemonErr}`).toBe(true);
    expect(run).toMatchObject({ conclusion: 'success', head_sha: sha, event: 'push' });

    const jobs = JSON.parse((await api(`/actions/runs/${run?.id}/jobs`)).text) as {
      jobs: Json[];
    };
    expect(jobs.jobs.map((job) => [job.name, job.conclusion]).sort()).toEqual([
      ['build', 'success'],
      ['ship', 'success'],
    ]);
    const logOf = async (job: string) => {
      const id = jobs.jobs.find((candidate) => candidate.name === job)?.id;
      const log = await api(`/actions/jobs/${id}/logs`);
      expect(log.status).toBe(200);
      return log.text;
    };
    const build = await logOf('build');
    expect(build).toContain(`building ${sha}`);
    expect(build).toContain('the secret is ***');
    expect(build).toContain(`cloned ${sha}`);
    expect(build).not.toContain(SECRET);
    expect(await logOf('ship')).toContain(`shipping hello from ${full}`);
  }, 150_000);
});
