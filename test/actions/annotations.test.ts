/**
 * Annotations from `::error`, `::warning` and `::notice` lines of a job's log, sent by a runner
 * replaying act_runner's calls: stored as the rows arrive, at most 50 per level and job, shown
 * on the job page as annotations (the command line reads as its message, not as raw text) and
 * on the run page with the job's name, and next to the line they name in a pull request's files
 * when that line is in the diff; a re-run starts the job's annotations over.
 */
import { describe, expect, it } from 'vitest';
import { Result } from '../../src/gen/runner/v1/messages_pb.js';
import { type GitClient, repoUrl } from '../support/git.ts';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { makeRepo, page, signedIn } from '../web/fixtures.ts';
import { pushedRepoWithReader } from './fixtures.ts';
import { ReplayRunner } from './replay-runner.ts';

const WORKFLOW = `on: push
jobs:
  lint:
    runs-on: annotate-box
    steps: [{run: make lint}]
`;

let kiln: TestServer;
let git: GitClient;

useWorld({ env: { SERVICE_PROTECT_ENABLED: 'false' } }, (world) => {
  ({ kiln, git } = world);
});

describe('annotations from a job log', () => {
  it('are stored, bounded, and shown on the job and run pages', async () => {
    const runner = await ReplayRunner.register(kiln, { labels: ['annotate-box'] });
    const { owner, name } = await pushedRepoWithReader(kiln, git, {
      '.gitea/workflows/ci.yml': WORKFLOW,
    });
    const runPath = `/repos/${owner.user.handle}/${name}/actions/runs/1`;
    const flood = Array.from({ length: 80 }, (_, i) => `::warning::unused variable ${i}`);
    const task = await runner.next();
    await runner.run(task, {
      steps: [
        {
          lines: [
            'linting',
            '::error file=src/app.ts,line=3,endLine=4,title=Type mismatch::x %3C y%0Ais never true',
            '::notice::lint done <b>bold</b>',
            ...flood,
          ],
        },
        // Another batch of rows: the cap counts what the job already has.
        {
          lines: ['::warning::one warning too many', '::error::and another error'],
          result: Result.FAILURE,
        },
      ],
    });
    const jobPath = `${runPath}/jobs/${task.id}`;
    const browser = await signedIn(kiln, owner.user.handle, owner.password);
    const body = await page(browser, jobPath);
    const box = /<div class="Box mb-3" aria-label="Annotations">([\s\S]*?)<\/ul>/.exec(body)?.[1];
    expect(box).toBeDefined();
    expect(box).toContain('Type mismatch');
    expect(box).toContain('src/app.ts#L3-L4');
    expect(box).toContain('x %3C y\nis never true');
    // What a log says is text, never markup.
    expect(box).toContain('lint done &lt;b&gt;bold&lt;/b&gt;');
    expect(box?.match(/data-annotation="warning"/g)).toHaveLength(50);
    expect(box?.match(/data-annotation="error"/g)).toHaveLength(2);
    expect(box).not.toContain('one warning too many');
    expect(box?.match(/data-annotation="notice"/g)).toHaveLength(1);
    // In the log the command reads as its message, not as the command.
    expect(body).toContain('data-annotation-line="error"');
    expect(body).not.toContain('::error file=');

    const run = await page(browser, runPath);
    expect(run).toContain('aria-label="Annotations"');
    expect(run).toMatch(/<strong>lint<\/strong> (·|&#xb7;) Error: <strong>Type mismatch<\/strong>/);

    // The raw log keeps the lines as the job printed them.
    const raw = await (await browser.get(`${jobPath}/logs`)).text();
    expect(raw).toContain('::error file=src/app.ts,line=3');

    // A re-run starts over: the annotations of the new attempt only.
    const again = await apiCall(kiln.url, `${runPath}/rerun`, {
      method: 'POST',
      token: owner.token,
    });
    expect(again.status).toBe(201);
    const second = await runner.next();
    await runner.run(second, { steps: [{ lines: ['::notice::second attempt'] }] });
    const after = await page(browser, jobPath);
    expect(after).toContain('second attempt');
    expect(after).not.toContain('Type mismatch');
  });
});

const ON_FEATURE = `on: {push: {branches: [feature]}}
jobs:
  check:
    runs-on: annotate-box
    steps: [{run: make check}]
`;

describe('annotations on a pull request', () => {
  it("are shown next to the lines of the head's diff that they name", async () => {
    const runner = await ReplayRunner.register(kiln, { labels: ['annotate-box'] });
    const owner = await kiln.make.userWithToken();
    const repo = await makeRepo(kiln, owner.user, 'annotated');
    const url = repoUrl(kiln.url, owner.user.handle, repo.name, {
      token: owner.token,
      as: 'password',
    });
    const dir = await git.init();
    await git.commit(dir, {
      '.gitea/workflows/ci.yml': ON_FEATURE,
      'src/app.ts': 'one\ntwo\nthree\n',
      'README.md': 'read me\n',
    });
    await git.ok(['push', '-q', url, 'HEAD:refs/heads/main'], { cwd: dir });
    await git.commit(dir, { 'src/app.ts': 'one\nTWO\nthree\n' });
    await git.ok(['push', '-q', url, 'HEAD:refs/heads/feature'], { cwd: dir });
    const task = await runner.next();
    await runner.run(task, {
      steps: [
        {
          lines: [
            '::error file=src/app.ts,line=2,title=Shouting::TWO is upper case',
            '::warning file=README.md,line=1::not part of the change',
          ],
          result: Result.FAILURE,
        },
      ],
    });
    const pull = await apiCall(kiln.url, `/repos/${owner.user.handle}/${repo.name}/pulls`, {
      method: 'POST',
      token: owner.token,
      body: { head: 'feature', base: 'main', title: 'Louder' },
    });
    expect(pull.status).toBe(201);
    const browser = await signedIn(kiln, owner.user.handle, owner.password);
    const files = await page(browser, `/repos/${owner.user.handle}/${repo.name}/pulls/1/files`);
    const row = /<tr class="kiln-comment-row">[\s\S]*?<\/tr>/.exec(
      files.slice(files.indexOf('TWO')),
    )?.[0];
    expect(row).toContain('TWO is upper case');
    expect(row).toContain('Shouting');
    expect(files).not.toContain('not part of the change');
  });
});
