/**
 * Helpers shared by the runner and CI suites: a Connect client speaking to a test server the way
 * the Go runners do, and rows the suites need before the features that would make them exist.
 */
import { randomBytes } from 'node:crypto';
import { createClient, type Transport } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import type { User } from '../../src/domain/users/user.types.ts';
import { PingService } from '../../src/gen/ping/v1/services_pb.js';
import { RunnerService } from '../../src/gen/runner/v1/services_pb.js';
import { makeRepo } from '../git/fixtures.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';

/** Binary protobuf over HTTP/1.1, as act_runner and the Forgejo runner send it. */
export function runnerTransport(kiln: { url: string }): Transport {
  return createConnectTransport({
    httpVersion: '1.1',
    useBinaryFormat: true,
    baseUrl: `${kiln.url}/api/actions`,
  });
}

export function runnerClients(kiln: { url: string }) {
  const transport = runnerTransport(kiln);
  return {
    ping: createClient(PingService, transport),
    runner: createClient(RunnerService, transport),
  };
}

/** The headers a registered runner sends on every later call. */
export function runnerHeaders(runner: { uuid: string; token: string }) {
  return { 'x-runner-uuid': runner.uuid, 'x-runner-token': runner.token };
}

/**
 * A repository row, written straight to the table: these suites need a repository id to scope
 * tokens, secrets and runs to, not a git repository on disk.
 */
export async function insertRepository(
  kiln: TestServer,
  owner: { id: string },
  name = `repo-${randomBytes(3).toString('hex')}`,
): Promise<{ id: string; name: string }> {
  const id = crypto.randomUUID();
  const now = Date.now();
  await kiln.app.database.db
    .insertInto('repositories')
    .values({
      id,
      owner_id: owner.id,
      name,
      name_lower: name.toLowerCase(),
      description: '',
      private: false,
      parent_id: null,
      pull_counter: 0,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return { id, name };
}

/**
 * A new owner's public repository with a second person as reader, its `main` pushed over HTTP
 * with `files` (so the push triggers run as for any push).
 */
export async function pushedRepoWithReader(
  kiln: TestServer,
  git: GitClient,
  files: Record<string, string>,
) {
  const owner = await kiln.make.userWithToken();
  const reader = await kiln.make.userWithToken();
  const { name } = await makeRepo(kiln, owner.user);
  await kiln.app.services.collaborators.put(
    owner.user,
    owner.user.handle,
    name,
    reader.user.handle,
    'read',
  );
  const dir = await git.init();
  await git.commit(dir, files);
  const url = repoUrl(kiln.url, owner.user.handle, name, { token: owner.token, as: 'password' });
  await git.ok(['push', '-q', url, 'HEAD:refs/heads/main'], { cwd: dir });
  return { owner, reader, name };
}

/**
 * A pull request from a new fork of `owner/name`, made by `forker`: the fork's `patch` branch
 * holds one more commit on top of what `dir` has. Returns the fork's push URL for more commits.
 */
export async function openForkPull(
  kiln: TestServer,
  git: GitClient,
  target: { owner: string; name: string; dir: string },
  forker: { user: User; token: string },
): Promise<{ forkUrl: string }> {
  const fork = await kiln.app.services.repos.fork(forker.user, target.owner, target.name, {});
  const forkUrl = repoUrl(kiln.url, forker.user.handle, fork.repo.name, {
    token: forker.token,
    as: 'password',
  });
  await git.commit(target.dir, { 'b.txt': 'from a fork' });
  await git.ok(['push', '-q', forkUrl, 'HEAD:refs/heads/patch'], { cwd: target.dir });
  await kiln.app.services.pulls.create(forker.user, target.owner, target.name, {
    title: 'From a fork',
    head: `${forker.user.handle}:patch`,
    base: 'main',
  });
  return { forkUrl };
}

/**
 * Approves, as a writer holding `token`, the runs of `owner/name` waiting for approval (runs
 * of pull requests from forks), through the API as a person would; answers how many it approved.
 */
export async function approveWaitingRuns(
  kiln: { url: string },
  repo: { owner: string; name: string },
  token: string,
): Promise<number> {
  const path = `/repos/${repo.owner}/${repo.name}/actions/runs`;
  const listed = await apiCall(kiln.url, path, { token });
  const runs = (listed.body as { workflow_runs: { id: number; conclusion: string | null }[] })
    .workflow_runs;
  let approved = 0;
  for (const run of runs.filter((candidate) => candidate.conclusion === 'action_required')) {
    const answer = await apiCall(kiln.url, `${path}/${run.id}/approve`, { method: 'POST', token });
    if (answer.status !== 200) throw new Error(`approving run ${run.id}: ${answer.status}`);
    approved++;
  }
  return approved;
}

/** Forks `base` for `author` and lets `other` push to the fork too; answers the fork. */
export async function forkSharedWith(
  kiln: TestServer,
  base: { owner: string; name: string },
  author: User,
  other: User,
) {
  const { repos, collaborators } = kiln.app.services;
  const fork = await repos.fork(author, base.owner, base.name, {});
  await collaborators.put(author, author.handle, fork.repo.name, other.handle, 'write');
  return fork.repo;
}
