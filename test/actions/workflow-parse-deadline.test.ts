/**
 * A pushed workflow file is parsed off the request thread, within a deadline: a 500 KiB file
 * whose one mapping of distinct keys takes seconds to parse ends as a failed run naming the
 * deadline, while `GET /api/v1/version` keeps answering; the next push's workflow runs as usual.
 */
import { describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import type { GitClient } from '../support/git.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { ciProject } from './caps-support.ts';

let kiln: TestServer;
let git: GitClient;
let owner: User;
let token: string;
useWorld({ people: ['owner'] }, (world) => {
  ({ kiln, git } = world);
  ({ user: owner, token } = world.people.owner);
});

const JOBS = 'jobs:\n  a:\n    runs-on: nobody\n    steps: [{run: x}]\n';

/** About `bytes` of distinct keys under `env:`: checking them unique takes seconds. */
function keyHeavy(bytes: number): string {
  const lines: string[] = [];
  for (let size = 0, at = 0; size < bytes; at++) {
    const line = `  k${at}: v\n`;
    lines.push(line);
    size += line.length;
  }
  return `on: push\nenv:\n${lines.join('')}${JOBS}`;
}

/** Runs `work` while calling `GET /api/v1/version` back to back; answers the slowest call. */
async function slowestVersionDuring(work: () => Promise<unknown>): Promise<number> {
  let stop = false;
  let slowest = 0;
  const probe = (async () => {
    while (!stop) {
      const started = performance.now();
      const response = await fetch(`${kiln.url}/api/v1/version`);
      await response.arrayBuffer();
      expect(response.status).toBe(200);
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  try {
    await work();
  } finally {
    stop = true;
    await probe;
  }
  return slowest;
}

describe('a pushed workflow file', () => {
  it('that parses past the deadline fails its run, and the server answers all along', async () => {
    const project = await ciProject(kiln, git, owner, token);
    const slowest = await slowestVersionDuring(async () => {
      await project.push({ '.gitea/workflows/keys.yml': keyHeavy(500 * 1024) });
      await project.runsSettle(1);
    });
    const [run] = await project.runs();
    expect(run?.status).toBe('FAILURE');
    expect(run?.error).toBe(
      '.gitea/workflows/keys.yml: the workflow took longer than 2 s to parse and was abandoned',
    );
    // Parsed on this thread, the file would hold every call for seconds; the margin is the
    // shared machine's scheduler and the push's own work.
    expect(slowest).toBeLessThan(250);
    // The worker that was stopped has been replaced: the next workflow runs.
    await project.push({
      '.gitea/workflows/keys.yml': `on: push\n${JOBS}`,
    });
    const runs = await project.runsSettle(2);
    expect(runs[1]?.error ?? null).toBeNull();
    expect(runs[1]?.status).not.toBe('FAILURE');
  }, 60_000);
});
