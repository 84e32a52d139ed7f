/**
 * Approval of runs from forks on the pages: the run page and the pull request page say that the
 * run needs approval by someone with write access; only writers get the Approve and run button
 * (a form with the CSRF token), which approves the pull request's waiting runs and returns to
 * the page it was pressed on. A forged post changes nothing; a reader's post is refused. The
 * Actions tab marks the run as needing approval.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { makeRepo } from '../git/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
import { Browser } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';
import { page, signedIn } from '../web/fixtures.ts';
import { openForkPull } from './fixtures.ts';
import { ReplayRunner } from './replay-runner.ts';

const NOTICE = 'This run from a fork needs approval by someone with write access';
const LABEL = `fork-pages-${Math.random().toString(36).slice(2, 8)}`;

let kiln: TestServer;
let git: GitClient;
let people: Record<'owner' | 'writer' | 'reader' | 'forker', Person>;
let repoPath: string;
let runPath: string;
let pullPath: string;
let runner: ReplayRunner;

useWorld({ people: ['owner', 'writer', 'reader', 'forker'] }, (world) => {
  ({ kiln, git } = world);
  people = world.people;
});

beforeAll(async () => {
  const { owner, writer, reader, forker } = people;
  const { owner: handle, name } = await makeRepo(kiln, owner.user);
  repoPath = `/repos/${handle}/${name}`;
  const { collaborators } = kiln.app.services;
  await collaborators.put(owner.user, handle, name, writer.user.handle, 'write');
  await collaborators.put(owner.user, handle, name, reader.user.handle, 'read');
  const dir = await git.init();
  await git.commit(dir, {
    '.gitea/workflows/pr.yml': `on: pull_request\njobs:\n  check:\n    runs-on: ${LABEL}\n    steps: [{run: make check}]\n`,
  });
  const url = repoUrl(kiln.url, handle, name, { token: owner.token, as: 'password' });
  await git.ok(['push', '-q', url, 'HEAD:refs/heads/main'], { cwd: dir });
  runner = await ReplayRunner.register(kiln, { labels: [LABEL] });
  await openForkPull(kiln, git, { owner: handle, name, dir }, forker);
  const { repo } = await kiln.app.services.repos.get(owner.user, handle, name);
  const runs = () =>
    kiln.app.database.db
      .selectFrom('workflow_runs')
      .select('number')
      .where('repo_id', '=', repo.id)
      .execute();
  expect(await eventually(async () => (await runs()).length === 1)).toBe(true);
  runPath = `${repoPath}/actions/runs/${(await runs())[0]?.number}`;
  pullPath = `${repoPath}/pulls/1`;
}, 60_000);

const approveForm = (path: string) => `action="${path}/approve"`;

describe('a run from a fork waiting for approval', () => {
  it('shows the notice to everyone and the button to writers only, on the run and pull pages', async () => {
    const anonymous = new Browser(kiln.url);
    const reader = await signedIn(kiln, people.reader.user.handle, people.reader.password);
    const writer = await signedIn(kiln, people.writer.user.handle, people.writer.password);
    for (const path of [runPath, pullPath]) {
      for (const browser of [anonymous, reader]) {
        const body = await page(browser, path);
        expect(body).toContain(NOTICE);
        expect(body).not.toContain(approveForm(runPath));
        expect(body).not.toContain('Approve and run');
      }
      const body = await page(writer, path);
      expect(body).toContain(NOTICE);
      expect(body).toContain(approveForm(runPath));
      expect(body).toContain('Approve and run');
    }
    expect(await page(anonymous, `${repoPath}/actions`)).toContain('needs approval');
  });

  it('is approved by a writer’s form, not by a forged or a reader’s post', async () => {
    const reader = await signedIn(kiln, people.reader.user.handle, people.reader.password);
    const writer = await signedIn(kiln, people.writer.user.handle, people.writer.password);
    const forged = await writer.post(`${runPath}/approve`, { back: 'pull' }, { csrf: false });
    expect(forged.status).toBe(403);
    const refused = await reader.post(`${runPath}/approve`, {});
    expect(refused.status).toBe(403);
    expect(await runner.poll()).toBeUndefined();

    const approved = await writer.post(`${runPath}/approve`, { back: 'pull' });
    expect(approved.status).toBe(303);
    expect(approved.headers.get('location')).toBe(pullPath);
    const task = await runner.next();
    await runner.run(task);
    for (const path of [runPath, pullPath]) {
      expect(await page(writer, path)).not.toContain(NOTICE);
    }
    expect(await page(writer, `${repoPath}/actions`)).not.toContain('needs approval');
    expect(await page(reader, runPath)).toMatch(
      new RegExp(`Approved by <a [^>]*>${people.writer.user.handle}</a>`),
    );
  });
});
