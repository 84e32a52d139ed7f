import { execFileSync } from 'node:child_process';
import { link, mkdtemp, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStepFiles, EnvFileError, readStepFiles, type StepFiles } from './env-files.ts';
import { JobFileError, readJobFile } from './job-files.ts';

let dir: string;
let secret: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kiln-step-files-'));
  secret = join(dir, 'registration');
  await writeFile(secret, 'SUMMARY=the runner token\n', { mode: 0o600 });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Swap = 'symlink' | 'hardlink' | 'fifo' | 'directory';

async function swap(path: string, how: Swap): Promise<void> {
  await unlink(path);
  if (how === 'symlink') await symlink(secret, path);
  else if (how === 'hardlink') await link(secret, path);
  else if (how === 'fifo') execFileSync('mkfifo', [path]);
  else execFileSync('mkdir', [path]);
}

describe('reading back the files of a step', () => {
  it('never reads through something a step put in place of one of its files', async () => {
    const keys: (keyof StepFiles)[] = ['env', 'output', 'path', 'summary', 'state'];
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...keys),
        fc.constantFrom<Swap>('symlink', 'hardlink', 'fifo', 'directory'),
        async (key, how) => {
          const files = await createStepFiles(join(dir, `step-${run++}`), `id${run}`);
          await swap(files[key], how);
          const read = readStepFiles(files);
          await expect(read).rejects.toThrow(EnvFileError);
          await expect(read).rejects.toThrow(/was replaced by something the runner does not read/);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('reads what a step wrote, and nothing for a file it removed', async () => {
    const files = await createStepFiles(join(dir, 'plain'), 'plain');
    await writeFile(files.env, 'GREETING=hello\n');
    await unlink(files.summary);
    const values = await readStepFiles(files);
    expect(values.env).toEqual({ GREETING: 'hello' });
    expect(values.summary).toBe('');
  });
});

describe("reading a local action's file", () => {
  it('reads a plain file of the workspace and refuses any way out of it', async () => {
    const workspace = join(dir, 'workspace');
    execFileSync('mkdir', ['-p', join(workspace, 'action')]);
    await writeFile(join(workspace, 'action', 'action.yml'), 'name: mine\n');
    expect(await readJobFile(join(workspace, 'action', 'action.yml'), [workspace])).toBe(
      'name: mine\n',
    );
    await symlink(secret, join(workspace, 'linked.yml'));
    await link(secret, join(workspace, 'hard.yml'));
    await symlink(dir, join(workspace, 'up'));
    for (const path of ['linked.yml', 'hard.yml', 'up/registration']) {
      await expect(readJobFile(join(workspace, path), [workspace])).rejects.toThrow(JobFileError);
    }
  });
});
