/**
 * A pushed workflow file is parsed off the request thread, within a deadline: a 500 KiB file
 * whose one mapping of distinct keys takes seconds to parse ends as a failed run naming the
 * deadline, while `GET /api/v1/version` keeps answering; the next push's workflow runs as usual.
 */
import { describe, expect, it } from 'vitest';
import { keyHeavy, ONE_JOB } from '../../src/domain/ci/workflow/hostile-workflows.fixture.ts';
import type { User } from '../../src/domain/users/user.types.ts';
import type { GitClient } from '../support/git.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { ciProject, whileProbing } from './caps-support.ts';

let kiln: TestServer;
let git: GitClient;
let owner: User;
let token: string;
useWorld({ people: ['owner'] }, (world) => {
  ({ kiln, git } = world);
  ({ user: owner, token } = world.people.owner);
});

describe('a pushed workflow file', () => {
  it('that parses past the deadline fails its run, and the server answers all along', async () => {
    const project = await ciProject(kiln, git, owner, token);
    await whileProbing(kiln, async () => {
      await project.push({ '.gitea/workflows/keys.yml': keyHeavy(500 * 1024) });
      await project.runsSettle(1);
    });
    const [run] = await project.runs();
    expect(run?.status).toBe('FAILURE');
    expect(run?.error).toBe(
      '.gitea/workflows/keys.yml: the workflow took longer than 2 s to parse and was abandoned',
    );
    // The worker that was stopped has been replaced: the next workflow runs.
    await project.push({
      '.gitea/workflows/keys.yml': `on: push\n${ONE_JOB}`,
    });
    const runs = await project.runsSettle(2);
    expect(runs[1]?.error ?? null).toBeNull();
    expect(runs[1]?.status).not.toBe('FAILURE');
  }, 60_000);
});
