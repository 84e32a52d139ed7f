/**
 * What the `concurrency:` suites share: a workflow committed once and pushed to one branch per
 * run (so that Gitea's default — a new push cancels the unfinished runs of the same ref and
 * workflow — plays no part), and the runs as the REST API lists them.
 */
import { expect } from 'vitest';
import type { Task } from '../../src/gen/runner/v1/messages_pb.js';
import { eventually } from '../support/eventually.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import type { Person } from '../support/world.ts';

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
