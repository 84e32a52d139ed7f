/**
 * A repository with a pushed one-job workflow and the task a replaying runner claimed for it:
 * the task token is what `ACTIONS_RUNTIME_TOKEN` carries, the run number what `GITHUB_RUN_ID`
 * does.
 */

import type { User } from '../../src/domain/users/user.types.ts';
import type { Task } from '../../src/gen/runner/v1/messages_pb.js';
import { ReplayRunner } from '../actions/replay-runner.ts';
import { makeRepo } from '../git/fixtures.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
import type { TestServer } from '../support/server.ts';

export type ClaimedTask = {
  readonly user: User;
  readonly token: string;
  readonly repo: string;
  readonly runner: ReplayRunner;
  readonly task: Task;
  readonly taskToken: string;
  readonly runNumber: number;
};

/** Pushes a workflow for `label` to a new repository and claims its job. */
export async function claimTask(
  kiln: TestServer,
  git: GitClient,
  label: string,
  options: { private?: boolean } = {},
): Promise<ClaimedTask> {
  const { user, token } = await kiln.make.userWithToken();
  const { name } = await makeRepo(kiln, user, { private: options.private ?? false });
  const dir = await git.init();
  await git.commit(dir, {
    '.gitea/workflows/ci.yml': `on: push\njobs:\n  build:\n    runs-on: ${label}\n    steps: [{run: a}]\n`,
  });
  const url = repoUrl(kiln.url, user.handle, name, { token, as: 'password' });
  await git.ok(['push', '-q', url, 'HEAD:refs/heads/main'], { cwd: dir });
  const runner = await ReplayRunner.register(kiln, { labels: [label] });
  const task = await runner.next();
  return {
    user,
    token,
    repo: `${user.handle}/${name}`,
    runner,
    task,
    taskToken: task.secrets.GITHUB_TOKEN ?? '',
    runNumber: 1,
  };
}

/** Points the pipeline-protocol client (`@actions/artifact` 1.x) at a task, as a runner does. */
export function actAsTask(kiln: TestServer, claimed: ClaimedTask, workspace: string): void {
  process.env.ACTIONS_RUNTIME_URL = `${kiln.url}/api/actions_pipeline/`;
  process.env.ACTIONS_RUNTIME_TOKEN = claimed.taskToken;
  process.env.GITHUB_RUN_ID = String(claimed.runNumber);
  process.env.GITHUB_WORKSPACE = workspace;
  process.env.GITHUB_SERVER_URL = kiln.url;
}
