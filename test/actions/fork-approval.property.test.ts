/**
 * The approval rule under any sequence of pull request changes: pull requests from a stranger's
 * fork are opened, pushed to (by their author, or by another stranger the fork lets push),
 * closed and reopened (by their author or the owner), and approved by the owner, a reader or a stranger. After every step a
 * runner takes every job it is offered: no job of a run still waiting for approval ever
 * reaches it, every other run is handed out and finished, and the runs' approval state is the
 * one a model of the rule predicts (one approval per pull request, covering the people whose
 * runs it let go).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { makeRepo } from '../git/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { forkSharedWith } from './fixtures.ts';
import { ReplayRunner } from './replay-runner.ts';

type Person = { readonly user: User; readonly token: string };
type Approver = 'writer' | 'reader' | 'stranger';
type Step =
  | { readonly kind: 'open' }
  | { readonly kind: 'push'; readonly pull: number; readonly by: 'author' | 'other' }
  | { readonly kind: 'approve'; readonly pull: number; readonly by: Approver }
  | { readonly kind: 'reopen'; readonly pull: number; readonly by: 'author' | 'writer' };

/** What the rule predicts of one run: whether it had to wait, and whether it was approved. */
type ModelRun = { readonly actorId: string; readonly waits: boolean; stamped: boolean };
type ModelPull = {
  readonly id: string;
  readonly number: number;
  readonly branch: string;
  readonly approved: Set<string>;
  readonly runs: ModelRun[];
  /** Who last pushed the head branch: a run other than a push's own executes their head. */
  lastPusher: Person;
};

const LABEL = `fork-property-${Math.random().toString(36).slice(2, 8)}`;
const WORKFLOW = `on: pull_request\njobs:\n  check:\n    runs-on: ${LABEL}\n    steps: [{run: make check}]\n`;

let kiln: TestServer;
let git: GitClient;
let people: Record<'owner' | 'reader' | 'stranger' | 'author' | 'other', Person>;
let base: { owner: string; name: string; repoId: string };
let forkUrls: { author: string; other: string };
let dir: string;
let root: string;
let runner: ReplayRunner;

useWorld(
  { people: ['owner', 'reader', 'stranger', 'author', 'other'], timeoutMs: 60_000 },
  async (world) => {
    ({ kiln, git } = world);
    people = world.people;
    const { owner, reader, author, other } = people;
    const made = await makeRepo(kiln, owner.user);
    const { repos, collaborators } = kiln.app.services;
    const { repo } = await repos.get(owner.user, made.owner, made.name);
    base = { ...made, repoId: repo.id };
    await collaborators.put(owner.user, made.owner, made.name, reader.user.handle, 'read');
    dir = await git.init();
    root = await git.commit(dir, { '.gitea/workflows/pr.yml': WORKFLOW });
    const ownerUrl = repoUrl(kiln.url, made.owner, made.name, {
      token: owner.token,
      as: 'password',
    });
    await git.ok(['push', '-q', ownerUrl, 'HEAD:refs/heads/main'], { cwd: dir });
    // The author's fork, to which a second stranger may push too.
    const fork = await forkSharedWith(kiln, made, author.user, other.user);
    const urlAs = (person: Person) =>
      repoUrl(kiln.url, author.user.handle, fork.name, {
        token: person.token,
        as: 'password',
      });
    forkUrls = { author: urlAs(author), other: urlAs(other) };
    runner = await ReplayRunner.register(kiln, { labels: [LABEL] });
  },
);

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constant({ kind: 'open' } as const),
  fc.record({
    kind: fc.constant('push' as const),
    pull: fc.nat(),
    by: fc.constantFrom('author' as const, 'other' as const),
  }),
  fc.record({
    kind: fc.constant('approve' as const),
    pull: fc.nat(),
    by: fc.constantFrom('writer' as const, 'reader' as const, 'stranger' as const),
  }),
  fc.record({
    kind: fc.constant('reopen' as const),
    pull: fc.nat(),
    by: fc.constantFrom('author' as const, 'writer' as const),
  }),
);

let branches = 0;

/**
 * Records the run a pull request change makes, as the rule predicts it: it waits unless its
 * actor, the pull's author (always a stranger here) and, for a run that is not a push's own,
 * whoever last pushed the head are the owner or approved for it.
 */
function expectRun(pull: ModelPull, actor: Person, kind: 'push' | 'other' = 'other'): void {
  const trusted = (person: Person) => person === people.owner || pull.approved.has(person.user.id);
  const pusherTrusted = kind === 'push' || trusted(pull.lastPusher);
  pull.runs.push({
    actorId: actor.user.id,
    waits: !trusted(actor) || !trusted(people.author) || !pusherTrusted,
    stamped: false,
  });
}

async function pushTo(pull: ModelPull, by: 'author' | 'other'): Promise<void> {
  await git.ok(['checkout', '-q', pull.branch], { cwd: dir });
  await git.commit(dir, { [`${pull.branch}.txt`]: `${Date.now()} ${Math.random()}` });
  await git.ok(['push', '-q', forkUrls[by], `HEAD:refs/heads/${pull.branch}`], { cwd: dir });
}

async function apply(pulls: ModelPull[], s: Step): Promise<void> {
  const { author, owner } = people;
  const pull = pulls.length === 0 || s.kind === 'open' ? undefined : pulls[s.pull % pulls.length];
  if (pull === undefined) {
    const branch = `topic-${++branches}-${Math.random().toString(36).slice(2, 6)}`;
    await git.ok(['checkout', '-q', '-b', branch, root], { cwd: dir });
    await git.commit(dir, { [`${branch}.txt`]: branch });
    await git.ok(['push', '-q', forkUrls.author, `HEAD:refs/heads/${branch}`], { cwd: dir });
    const { pull: made } = await kiln.app.services.pulls.create(
      author.user,
      base.owner,
      base.name,
      {
        title: branch,
        head: `${author.user.handle}:${branch}`,
        base: 'main',
      },
    );
    const opened = {
      id: made.id,
      number: made.number,
      branch,
      approved: new Set<string>(),
      runs: [],
      lastPusher: author,
    };
    expectRun(opened, author);
    pulls.push(opened);
    return;
  }
  if (s.kind === 'push') {
    await pushTo(pull, s.by);
    pull.lastPusher = people[s.by];
    expectRun(pull, people[s.by], 'push');
  } else if (s.kind === 'reopen') {
    // Closing starts nothing (the workflow takes the default types); reopening does. The
    // owner's reopen is no review of the stranger's code.
    const { pulls: service } = kiln.app.services;
    const by = s.by === 'writer' ? owner : author;
    await service.update(by.user, base.owner, base.name, pull.number, { state: 'closed' });
    await service.update(by.user, base.owner, base.name, pull.number, { state: 'open' });
    expectRun(pull, by);
  } else if (s.kind === 'approve') {
    await settled(pulls);
    const number = (await runsOfPull(pull.id)).at(-1)?.number;
    const approver = s.by === 'writer' ? owner : people[s.by];
    const path = `/repos/${base.owner}/${base.name}/actions/runs/${number}/approve`;
    const answer = await apiCall(kiln.url, path, { method: 'POST', token: approver.token });
    const latest = pull.runs.at(-1);
    if (s.by !== 'writer') {
      expect(answer.status, `approve by ${s.by}`).toBe(403);
    } else if (latest?.waits) {
      expect(answer.status).toBe(200);
      for (const run of pull.runs.filter((candidate) => candidate.waits && !candidate.stamped)) {
        run.stamped = true;
        pull.approved.add(run.actorId);
      }
      pull.approved.add(author.user.id);
      pull.approved.add(pull.lastPusher.user.id);
    } else {
      expect(answer.status).toBe(409);
    }
  }
}

function runsOfPull(pullId: string) {
  return kiln.app.database.db
    .selectFrom('workflow_runs')
    .select(['id', 'number', 'needs_approval', 'approved_at', 'triggered_by', 'status'])
    .where('pull_id', '=', pullId)
    .orderBy('number')
    .execute();
}

/** Waits until every run the model expects exists. */
async function settled(pulls: readonly ModelPull[]): Promise<void> {
  for (const pull of pulls) {
    const made = await eventually(
      async () => (await runsOfPull(pull.id)).length === pull.runs.length,
    );
    expect(made, `runs of pull #${pull.number}`).toBe(true);
  }
}

/** The runner takes and finishes every job it is offered; none may be of a waiting run. */
async function drain(pulls: readonly ModelPull[]): Promise<void> {
  for (let offered = await runner.poll(); offered !== undefined; offered = await runner.poll()) {
    const row = await kiln.app.database.db
      .selectFrom('ci_tasks')
      .innerJoin('workflow_runs', 'workflow_runs.id', 'ci_tasks.run_id')
      .select(['workflow_runs.id', 'workflow_runs.pull_id'])
      .where('ci_tasks.id', '=', Number(offered.id))
      .executeTakeFirstOrThrow();
    const pull = pulls.find((candidate) => candidate.id === row.pull_id);
    if (pull !== undefined) {
      const at = (await runsOfPull(pull.id)).findIndex((run) => run.id === row.id);
      const model = pull.runs[at];
      expect(
        model?.waits === true && !model.stamped,
        `task of a waiting run of #${pull.number}`,
      ).toBe(false);
    }
    await runner.run(offered);
  }
}

/** The stored runs are what the model predicts, and only waiting ones were never handed out. */
async function check(pulls: readonly ModelPull[]): Promise<void> {
  await settled(pulls);
  await drain(pulls);
  for (const pull of pulls) {
    const rows = await runsOfPull(pull.id);
    for (const [at, row] of rows.entries()) {
      const model = pull.runs[at];
      const label = `run #${row.number} of pull #${pull.number}`;
      expect(Boolean(row.needs_approval), label).toBe(model?.waits);
      expect(row.approved_at !== null, label).toBe(model?.stamped);
      const waiting = model?.waits === true && !model.stamped;
      if (!waiting) expect(['SUCCESS', 'CANCELLED'], label).toContain(row.status);
      const claimed = await kiln.app.database.db
        .selectFrom('ci_tasks')
        .select('id')
        .where('run_id', '=', row.id)
        // A claim gives the job a runner, which only a re-run takes away again.
        .where((eb) => eb.or([eb('runner_id', 'is not', null), eb('started_at', 'is not', null)]))
        .execute();
      if (waiting) expect(claimed, label).toEqual([]);
    }
  }
}

describe('approval of runs from forks', () => {
  it('hands no waiting run to a runner, and every approved one, after every step', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
        const pulls: ModelPull[] = [];
        for (const s of [{ kind: 'open' } as const, ...steps]) {
          await apply(pulls, s);
          await check(pulls);
        }
      }),
      { numRuns: 15 },
    );
  }, 300_000);
});
