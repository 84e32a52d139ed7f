/**
 * A workflow from a fork names `concurrency` groups as it likes, yet cannot touch the base's
 * runs through them: approved or not, its runs and jobs share groups only with runs of their
 * own pull request, so `cancel-in-progress` cancels none of the base's runs and queueing holds
 * none of them up. Generated group names and both levels (run and job).
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeRepo } from '../git/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
import { apiCall, type Json } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { ReplayRunner } from './replay-runner.ts';

let kiln: TestServer;
let git: GitClient;
useWorld({ timeoutMs: 60_000 }, (world) => {
  ({ kiln, git } = world);
});

/** A workflow on `on` whose `concurrency` sits at the run or the job level. */
function workflow(on: string, label: string, group: string, level: 'run' | 'job', cancel: boolean) {
  const concurrency = `{group: '${group}', cancel-in-progress: ${cancel}}`;
  return [
    `on: ${on}`,
    level === 'run' ? `concurrency: ${concurrency}` : '',
    'jobs:',
    '  deploy:',
    `    runs-on: ${label}`,
    level === 'job' ? `    concurrency: ${concurrency}` : '',
    '    steps: [{run: make deploy}]',
    '',
  ].join('\n');
}

async function runsOf(base: { owner: string; name: string }, token: string): Promise<Json[]> {
  const path = `/repos/${base.owner}/${base.name}/actions/runs`;
  return ((await apiCall(kiln.url, path, { token })).body as { workflow_runs: Json[] })
    .workflow_runs;
}

describe('concurrency groups named by a workflow from a fork', () => {
  it('never cancel nor hold up a run of the base', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/),
        fc.constantFrom('run' as const, 'job' as const),
        fc.boolean(),
        fc.boolean(),
        async (group, level, cancel, approve) => {
          const owner = await kiln.make.userWithToken();
          const stranger = await kiln.make.userWithToken();
          const base = await makeRepo(kiln, owner.user);
          const label = `deploy-${randomBytes(4).toString('hex')}`;
          const dir = await git.init();
          await git.commit(dir, {
            '.gitea/workflows/deploy.yml': workflow('push', label, group, level, false),
          });
          const ownerUrl = repoUrl(kiln.url, base.owner, base.name, {
            token: owner.token,
            as: 'password',
          });
          await git.ok(['push', '-q', ownerUrl, 'HEAD:refs/heads/main'], { cwd: dir });
          const runner = await ReplayRunner.register(kiln, { labels: [label] });
          // The base's deploy is running: its job is out on the runner.
          const deploying = await runner.next();
          // A stranger's pull adds a workflow naming the same group.
          const fork = await kiln.app.services.repos.fork(stranger.user, base.owner, base.name, {});
          await git.commit(dir, {
            '.gitea/workflows/evil.yml': workflow('pull_request', label, group, level, cancel),
          });
          const forkUrl = repoUrl(kiln.url, stranger.user.handle, fork.repo.name, {
            token: stranger.token,
            as: 'password',
          });
          await git.ok(['push', '-q', forkUrl, 'HEAD:refs/heads/patch'], { cwd: dir });
          await kiln.app.services.pulls.create(stranger.user, base.owner, base.name, {
            title: 'Harmless',
            head: `${stranger.user.handle}:patch`,
            base: 'main',
          });
          // Two workflows at the pull's head (deploy.yml's `on: push` does not match): one run.
          expect(await eventually(async () => (await runsOf(base, owner.token)).length === 2)).toBe(
            true,
          );
          const [pullRun] = await runsOf(base, owner.token);
          if (approve) {
            const path = `/repos/${base.owner}/${base.name}/actions/runs/${pullRun?.id}/approve`;
            const answer = await apiCall(kiln.url, path, { method: 'POST', token: owner.token });
            expect(answer.status).toBe(200);
            // Approved, the fork's job is not queued behind the base's deploy either.
            const forkTask = await runner.next();
            await runner.run(forkTask);
          }
          const [, baseRun] = await runsOf(base, owner.token);
          expect(baseRun).toMatchObject({ status: 'in_progress', conclusion: null });
          const outcome = await runner.run(deploying);
          expect(outcome).toBeDefined();
          const [, finished] = await runsOf(base, owner.token);
          expect(finished).toMatchObject({ status: 'completed', conclusion: 'success' });
        },
      ),
      { numRuns: 6 },
    );
  }, 240_000);
});
