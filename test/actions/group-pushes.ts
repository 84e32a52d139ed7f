/**
 * What the `concurrency:` suites share: a workflow committed once and pushed to one branch per
 * run (so that Gitea's default — a new push cancels the unfinished runs of the same ref and
 * workflow — plays no part), the runs as the REST API lists them, and the scenarios that hold
 * alike for a run's group and a job's.
 */
import { expect } from 'vitest';
import type { Task } from '../../src/gen/runner/v1/messages_pb.js';
import { eventually } from '../support/eventually.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import type { Person } from '../support/world.ts';
import type { ReplayRunner } from './replay-runner.ts';

/** Where the runs are: the server, the git client, and the repository's owner. */
export type GroupWorld = {
  readonly kiln: TestServer;
  readonly git: GitClient;
  readonly people: { readonly owner: Person };
};

/** A run as the runs API lists it: its number, branch, and conclusion or else status. */
export type ListedRun = { id: number; branch: string; state: string };

/** The runs of one of the owner's repositories, newest first. */
export async function listRuns(world: GroupWorld, repo: string): Promise<ListedRun[]> {
  const { owner } = world.people;
  const { body } = await apiCall(
    world.kiln.url,
    `/repos/${owner.user.handle}/${repo}/actions/runs`,
    { token: owner.token },
  );
  const listed = body as {
    workflow_runs: { id: number; head_branch: string; status: string; conclusion: string | null }[];
  };
  return listed.workflow_runs.map((run) => ({
    id: run.id,
    branch: run.head_branch,
    state: run.conclusion ?? run.status,
  }));
}

/**
 * Commits `.gitea/workflows/deploy.yml` once; the function returned pushes that commit to a
 * branch and waits for the push's run to be recorded (runs start after the push is answered).
 */
export async function branchPusher(world: GroupWorld, repo: string, workflow: string) {
  const { git, people } = world;
  const dir = await git.init();
  await git.commit(dir, { '.gitea/workflows/deploy.yml': workflow });
  const url = repoUrl(world.kiln.url, people.owner.user.handle, repo, {
    token: people.owner.token,
    as: 'password',
  });
  return async (branch: string) => {
    await git.ok(['push', '-q', url, `HEAD:refs/heads/${branch}`], { cwd: dir });
    const recorded = async () => (await listRuns(world, repo)).some((run) => run.branch === branch);
    expect(await eventually(recorded)).toBe(true);
  };
}

/** The ref a task was started for. */
export function refOf(task: Task): string {
  return (task.context as { ref?: string } | undefined)?.ref ?? '';
}

/** Pushes one branch and waits for its run (`branchPusher`'s function). */
export type Push = (branch: string) => Promise<void>;

/**
 * A group without `cancel-in-progress`, at whichever level it is declared: a's job runs, b's
 * waits and is replaced by c's, which runs once a's ends. `whileHeld` checks what a client sees
 * while a runs and c waits.
 */
export async function newestWaitingFollows(
  world: GroupWorld,
  repo: string,
  runner: ReplayRunner,
  push: Push,
  whileHeld: () => Promise<void>,
): Promise<void> {
  await push('a');
  const first = await runner.next();
  expect(refOf(first)).toBe('refs/heads/a');
  await push('b');
  await push('c');
  // b waited behind a and was replaced by c; nothing is handed out while a runs.
  expect(await runner.poll()).toBeUndefined();
  await whileHeld();

  await runner.run(first);
  const next = await runner.next();
  expect(refOf(next)).toBe('refs/heads/c');
  await runner.run(next);
  expect((await listRuns(world, repo)).map((run) => [run.branch, run.state])).toEqual([
    ['c', 'success'],
    ['b', 'cancelled'],
    ['a', 'success'],
  ]);
}

/**
 * A group with `cancel-in-progress`: b's push cancels a's running job, whose runner learns it
 * from UpdateTask, and b's runs. `after` checks what a client sees then.
 */
export async function newerCancelsRunning(
  runner: ReplayRunner,
  push: Push,
  after: () => Promise<void>,
): Promise<void> {
  await push('a');
  const first = await runner.next();
  await push('b');
  const outcome = await runner.run(first);
  expect(outcome.cancelled).toBe(true);
  expect(refOf(await runner.next())).toBe('refs/heads/b');
  await after();
}
