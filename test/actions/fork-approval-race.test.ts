/**
 * A push to a fork's branch is a run of its pusher's code, whoever notices the moved head first.
 * Between the branch moving and the push being announced, the pull is read every way a reader
 * can (its web page, the API, a line comment on the new head): each push still makes exactly
 * one `synchronize` run, by its pusher, and one by someone who cannot write waits for approval.
 * And a run made later by a trusted person (the approved author reopening) asks while the head
 * it would run was pushed by someone nobody approved.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { commitFiles } from '../../src/git/test-support.ts';
import { makeRepo } from '../git/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { forkSharedWith } from './fixtures.ts';
import { ReplayRunner } from './replay-runner.ts';

type Person = { readonly user: User; readonly token: string };
type Read = 'page' | 'api' | 'comment';

const LABEL = `fork-race-${Math.random().toString(36).slice(2, 8)}`;
const WORKFLOW = `on: pull_request\njobs:\n  check:\n    runs-on: ${LABEL}\n    steps: [{run: make check}]\n`;

let kiln: TestServer;
let git: GitClient;
let people: Record<'owner' | 'author' | 'other', Person>;
let runner: ReplayRunner;
let opened = 0;

useWorld({ people: ['owner', 'author', 'other'], timeoutMs: 60_000 }, (world) => {
  ({ kiln, git } = world);
  people = world.people;
});

/**
 * A public base with a pull request workflow, the author's fork (to which `other` may push too)
 * and a pull from it whose opening run the owner approved: the author is trusted from then on.
 */
async function approvedForkPull() {
  const { owner, author, other } = people;
  const { repos, pulls } = kiln.app.services;
  const base = await makeRepo(kiln, owner.user);
  const dir = await git.init();
  const root = await git.commit(dir, { '.gitea/workflows/pr.yml': WORKFLOW });
  const url = repoUrl(kiln.url, base.owner, base.name, { token: owner.token, as: 'password' });
  await git.ok(['push', '-q', url, 'HEAD:refs/heads/main'], { cwd: dir });
  runner ??= await ReplayRunner.register(kiln, { labels: [LABEL] });
  const fork = await forkSharedWith(kiln, base, author.user, other.user);
  const branch = `topic-${++opened}`;
  await commitFiles(repos.handle(fork).path, {
    branch,
    parents: [root],
    files: { 'topic.txt': `opened ${opened}\n` },
  });
  const { pull } = await pulls.create(author.user, base.owner, base.name, {
    title: branch,
    head: `${author.user.handle}:${branch}`,
    base: 'main',
  });
  const first = await runsOf(pull.id, 1);
  const approve = `/repos/${base.owner}/${base.name}/actions/runs/${first[0]?.number}/approve`;
  expect((await apiCall(kiln.url, approve, { method: 'POST', token: owner.token })).status).toBe(
    200,
  );
  await runner.run(await runner.next());
  return { base, fork, branch, pull };
}

/** The pull's runs once there are `count` of them, oldest first. */
async function runsOf(pullId: string, count: number) {
  const rows = () =>
    kiln.app.database.db
      .selectFrom('workflow_runs')
      .select(['number', 'needs_approval', 'approved_at', 'triggered_by', 'event'])
      .where('pull_id', '=', pullId)
      .orderBy('number')
      .execute();
  expect(await eventually(async () => (await rows()).length >= count)).toBe(true);
  // Give a run made twice the time to show up too.
  await new Promise((resolve) => setTimeout(resolve, 100));
  return rows();
}

/** Polls a few times: a runner that is handed nothing. */
async function receivesNothing(): Promise<boolean> {
  for (let i = 0; i < 3; i++) {
    if ((await runner.poll()) !== undefined) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/** The runner takes every job it is offered; none may be of a run that waits for approval. */
async function drainNoneWaiting(): Promise<void> {
  for (let offered = await runner.poll(); offered !== undefined; offered = await runner.poll()) {
    const run = await kiln.app.database.db
      .selectFrom('ci_tasks')
      .innerJoin('workflow_runs', 'workflow_runs.id', 'ci_tasks.run_id')
      .select(['workflow_runs.needs_approval', 'workflow_runs.approved_at'])
      .where('ci_tasks.id', '=', Number(offered.id))
      .executeTakeFirstOrThrow();
    expect(Boolean(run.needs_approval) && run.approved_at === null).toBe(false);
    await runner.run(offered);
  }
}

/**
 * A push by `pusher` to the fork's branch, with `reads` of the pull between the branch moving
 * and the push being announced: the ref is written as receive-pack would, then the reads, then
 * the push use case hears of it as the git edge would tell it.
 */
async function racedPush(
  target: Awaited<ReturnType<typeof approvedForkPull>>,
  pusher: Person,
  reads: readonly Read[],
  seq: number,
): Promise<void> {
  const { repos } = kiln.app.services;
  const gitDir = repos.handle(target.fork).path;
  const ref = `refs/heads/${target.branch}`;
  const oldSha = await git.ok(['rev-parse', ref], { cwd: gitDir });
  const file = `push-${seq}.txt`;
  const newSha = await commitFiles(gitDir, {
    branch: target.branch,
    files: { [file]: `${pusher.user.handle} ${seq} ${Math.random()}\n` },
  });
  const { owner, name } = target.base;
  const path = `/repos/${owner}/${name}/pulls/${target.pull.number}`;
  for (const read of reads) {
    if (read === 'page') expect((await fetch(`${kiln.url}${path}`)).status).toBe(200);
    if (read === 'api') {
      const shown = await apiCall(kiln.url, path, { token: people.owner.token });
      expect(shown.status).toBe(200);
    }
    if (read === 'comment') {
      const comment = { body: 'looks odd', path: file, line: 1 };
      const posted = await apiCall(kiln.url, `${path}/comments`, {
        method: 'POST',
        token: people.owner.token,
        body: comment,
      });
      expect(posted.status).toBe(201);
    }
  }
  await kiln.app.events.publish('push', {
    repo: target.fork,
    pusher: pusher.user,
    changes: [{ ref, oldSha, newSha }],
  });
}

describe('a push read before it is announced', () => {
  it('still makes its pusher’s run, which waits; and a reopen by the approved author asks', async () => {
    const target = await approvedForkPull();
    await racedPush(target, people.other, ['page', 'api', 'comment'], 1);
    const runs = await runsOf(target.pull.id, 2);
    expect(runs).toHaveLength(2);
    expect(runs[1]).toMatchObject({ triggered_by: people.other.user.id });
    expect(Boolean(runs[1]?.needs_approval)).toBe(true);
    expect(await receivesNothing()).toBe(true);

    // The author is approved, but the head they would run now is someone else's.
    const { pulls } = kiln.app.services;
    const { owner, name } = target.base;
    const author = people.author.user;
    await pulls.update(author, owner, name, target.pull.number, { state: 'closed' });
    await pulls.update(author, owner, name, target.pull.number, { state: 'open' });
    const after = await runsOf(target.pull.id, 3);
    expect(after).toHaveLength(3);
    expect(Boolean(after[2]?.needs_approval)).toBe(true);
    expect(await receivesNothing()).toBe(true);
  });

  it('makes one run per push, by its pusher, whatever reads come between', async () => {
    const read = fc.constantFrom<Read>('page', 'api', 'comment');
    const push = fc.record({
      by: fc.constantFrom('author' as const, 'other' as const),
      reads: fc.array(read, { maxLength: 3 }),
    });
    let seq = 100;
    await fc.assert(
      fc.asyncProperty(fc.array(push, { minLength: 1, maxLength: 3 }), async (sequence) => {
        const target = await approvedForkPull();
        for (const { by, reads } of sequence) await racedPush(target, people[by], reads, ++seq);
        const runs = await runsOf(target.pull.id, 1 + sequence.length);
        expect(runs).toHaveLength(1 + sequence.length);
        for (const [at, { by }] of sequence.entries()) {
          const run = runs[at + 1];
          expect(run?.triggered_by).toBe(people[by].user.id);
          // The author was approved; the other pusher never was.
          expect(Boolean(run?.needs_approval)).toBe(by === 'other');
        }
        await drainNoneWaiting();
      }),
      { numRuns: 6 },
    );
  }, 240_000);
});
