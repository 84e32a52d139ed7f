/**
 * The web's Actions tab end to end: a real push starts a two-job run, a runner client replaying
 * act_runner's calls (replay-runner.ts) reports steps and a log with ANSI colours and markup, and
 * people read the runs list, the run page and the job page of a private repository through the
 * pages. A writer cancels a running job from the run page and the runner learns it from its next
 * UpdateTask answer; readers and outsiders cannot. Runs on SQLite, and on PostgreSQL under
 * with-postgres.sh.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { Result, type Task } from '../../src/gen/runner/v1/messages_pb.js';
import { makeRepo } from '../git/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import type { Browser } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { page, signedIn } from '../web/fixtures.ts';
import { ReplayRunner } from './replay-runner.ts';

const ESC = '\u001b';
const WORKFLOW = `name: Build and ship
on: push
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - name: Compile
        run: make
      - name: Test
        run: make test
  ship:
    needs: build
    runs-on: ubuntu-latest
    steps:
      - name: Upload
        run: ship
      - name: Announce
        run: announce
`;

let kiln: TestServer;
let git: GitClient;
let owner: User;
let base: string;
let repoName: string;
const browsers: Record<'owner' | 'writer' | 'reader' | 'outsider', Browser> = {} as never;
let build: Task;
let runner: ReplayRunner;

beforeAll(async () => {
  kiln = await startTestServer();
  git = await GitClient.create();
  const made = await kiln.make.userWithToken();
  owner = made.user;
  const { name } = await makeRepo(kiln, owner, { private: true });
  repoName = name;
  base = `/repos/${owner.handle}/${name}`;
  for (const role of ['writer', 'reader', 'outsider'] as const) {
    const person = await kiln.make.user();
    if (role !== 'outsider') {
      const level = role === 'writer' ? 'write' : 'read';
      await kiln.app.services.collaborators.put(
        owner,
        owner.handle,
        name,
        person.user.handle,
        level,
      );
    }
    browsers[role] = await signedIn(kiln, person.user.handle, person.password);
  }
  browsers.owner = await signedIn(kiln, owner.handle, made.password);
  runner = await ReplayRunner.register(kiln);
  const dir = await git.init();
  await git.commit(dir, { '.gitea/workflows/ci.yml': WORKFLOW }, 'Add CI');
  const url = repoUrl(kiln.url, owner.handle, name, { token: made.token, as: 'password' });
  await git.ok(['push', '-q', url, 'HEAD:refs/heads/main'], { cwd: dir });
  build = await runner.next();
  await runner.run(build, {
    steps: [
      { lines: [`${ESC}[32mcompiled ok${ESC}[0m`, 'plain line'] },
      { lines: ['<script>alert(1)</script>', `${ESC}[1;31mwarning: flaky${ESC}[0m`, 'done'] },
    ],
  });
});
afterAll(async () => {
  await git?.dispose();
  await kiln?.close();
});

describe('the runs list', () => {
  it('shows the run in the Actions tab to readers, with its workflow, event and commit', async () => {
    const body = await page(browsers.reader, `${base}/actions`);
    expect(body).toContain(`href="${base}/actions" aria-current="page"`);
    expect(body).toMatch(/data-run="1"/);
    expect(body).toContain('Build and ship');
    expect(body).toContain('<code>main</code>');
    expect(body).toContain('push');
  });

  it('filters by workflow and by status with plain query parameters', async () => {
    expect(await page(browsers.reader, `${base}/actions?workflow=ci.yml`)).toContain(
      'data-run="1"',
    );
    expect(await page(browsers.reader, `${base}/actions?workflow=other.yml`)).not.toContain(
      'data-run=',
    );
    expect(await page(browsers.reader, `${base}/actions?status=failure`)).toContain(
      'No run matches these filters.',
    );
    const { run } = await kiln.app.services.ciRunQueries.getRun(owner, owner.handle, repoName, 1);
    const current = `${base}/actions?status=${run.status.toLowerCase()}`;
    expect(await page(browsers.reader, current)).toContain('data-run="1"');
  });

  it('is 404 to outsiders of a private repository, as are its runs and jobs', async () => {
    for (const path of [
      `${base}/actions`,
      `${base}/actions/runs/1`,
      `${base}/actions/runs/1/jobs/${build.id}`,
      `${base}/actions/runs/1/jobs/${build.id}/logs`,
    ]) {
      expect((await browsers.outsider.get(path)).status, path).toBe(404);
    }
  });
});

describe('the run page', () => {
  it('shows both jobs with their status, needs and links to their pages', async () => {
    const body = await page(browsers.reader, `${base}/actions/runs/1`);
    expect(body).toContain(`href="${base}/actions/runs/1/jobs/${build.id}"`);
    expect(body).toMatch(/>build<\/a>/);
    expect(body).toMatch(/>ship<\/a>/);
    expect(body).toContain('needs <code>build</code>');
    expect(body).toContain('data-status="success"');
    expect(body).toContain('<meta http-equiv="refresh" content="5">');
  });

  it('answers 404 for a run number that does not exist or is not a number', async () => {
    expect((await browsers.reader.get(`${base}/actions/runs/99`)).status).toBe(404);
    expect((await browsers.reader.get(`${base}/actions/runs/abc`)).status).toBe(404);
  });
});

describe('the job page', () => {
  it('splits the log by step with anchored line numbers and colour spans', async () => {
    const body = await page(browsers.reader, `${base}/actions/runs/1/jobs/${build.id}`);
    expect(body).toContain('id="step-0"');
    expect(body).toContain('id="step-1"');
    expect(body).toContain('Compile');
    expect(body).toContain('id="step-0-L1"');
    expect(body).toContain('href="#step-1-L3"');
    expect(body).toContain('<span class="ansi-32">compiled ok</span>');
    expect(body).toContain('<span class="ansi-31 ansi-bold">warning: flaky</span>');
    expect(body).not.toContain(ESC);
    expect(body).not.toContain('<meta http-equiv="refresh"');
  });

  it('escapes markup from the log', async () => {
    const body = await page(browsers.reader, `${base}/actions/runs/1/jobs/${build.id}`);
    expect(body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(body).not.toContain('<script>alert(1)');
  });

  it('links a raw log served as plain text', async () => {
    const body = await page(browsers.reader, `${base}/actions/runs/1/jobs/${build.id}`);
    expect(body).toContain(`href="${base}/actions/runs/1/jobs/${build.id}/logs"`);
    const raw = await browsers.reader.get(`${base}/actions/runs/1/jobs/${build.id}/logs`);
    expect(raw.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await raw.text();
    expect(text).toContain('<script>alert(1)</script>');
    expect(text).toContain(`${ESC}[32mcompiled ok`);
  });

  it('is 404 under another run number', async () => {
    expect((await browsers.reader.get(`${base}/actions/runs/2/jobs/${build.id}`)).status).toBe(404);
  });
});

describe('cancelling from the run page', () => {
  it('is offered to writers, refused to readers and outsiders, and stops the runner', async () => {
    const ship = await runner.next();
    const refusals: number[] = [];
    const outcome = await runner.run(ship, {
      steps: [{ lines: ['uploading'] }, { lines: ['never reached'] }],
      between: async (step) => {
        if (step !== 0) return;
        expect(await page(browsers.writer, `${base}/actions/runs/1`)).toContain('Cancel run');
        expect(await page(browsers.reader, `${base}/actions/runs/1`)).not.toContain('Cancel run');
        refusals.push((await browsers.reader.post(`${base}/actions/runs/1/cancel`, {})).status);
        refusals.push((await browsers.outsider.post(`${base}/actions/runs/1/cancel`, {})).status);
        const status = await kiln.app.services.ciRunQueries.getRun(
          owner,
          owner.handle,
          repoName,
          1,
        );
        expect(status.run.status).toBe('RUNNING');
        const done = await browsers.writer.post(`${base}/actions/runs/1/cancel`, {});
        expect(done.status).toBe(303);
        expect(done.headers.get('location')).toBe(`${base}/actions/runs/1`);
      },
    });
    expect(refusals).toEqual([403, 404]);
    expect(outcome.cancelled).toBe(true);
    expect(outcome.result).toBe(Result.CANCELLED);
    await eventually(async () => {
      const body = await page(browsers.writer, `${base}/actions/runs/1`);
      return body.includes('data-status="cancelled"') && !body.includes('Cancel run');
    }, 5_000);
  });
});
