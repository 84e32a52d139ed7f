/**
 * SIGKILL during a repository creation (with `auto_init`, so git runs after the directory is in
 * place): after a restart every repository row has a clean repository directory, no assembly is
 * left in the repository tree under any name but the one being created, and creating the
 * repository again succeeds (or answers 409 when the first attempt had completed) and leaves
 * one whole repository with its initial commit.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type CrashWorld,
  crashAndRestart,
  expectConsistent,
  expectFsckClean,
  killDelays,
  refSha,
  timeOf,
  useCrashWorld,
} from './support.ts';

let world: CrashWorld;
let counter = 0;

useCrashWorld((started) => {
  world = started;
});

const create = (name: string) => () =>
  world.api('/user/repos', { body: { name, auto_init: true } });

describe('SIGKILL during a repository creation', () => {
  it('leaves no half-made repository behind and the creation can be retried', async () => {
    const duration = await timeOf(async () =>
      expect((await create(`warmup${counter++}`)()).status).toBe(201),
    );
    for (const delay of killDelays(duration)) {
      const name = `crashed${counter++}`;
      await crashAndRestart(world, create(name), delay);
      const { orphans } = await expectConsistent(world);
      const dir = world.app.git.paths.resolve({ owner: world.owner.handle, name }).path;
      // The only directory without a row may be the one whose creation was cut short.
      expect(
        orphans.filter((orphan) => orphan !== dir),
        `kill at ${delay} ms`,
      ).toEqual([]);

      const existed = (await world.api(`/repos/${world.owner.handle}/${name}`)).status === 200;
      const retried = await create(name)();
      expect(
        retried.status,
        `retry after kill at ${delay} ms: ${JSON.stringify(retried.body)}`,
      ).toBe(existed ? 409 : 201);
      const shown = await world.api(`/repos/${world.owner.handle}/${name}`);
      expect(shown.status).toBe(200);
      await expectFsckClean(world.git, dir);
      expect(await refSha(world.git, dir, 'refs/heads/main')).toBeDefined();
      expect((await expectConsistent(world)).orphans).toEqual([]);
    }
    // Assemblies cut short stay under the temp root only, where start-up sweeps them once old.
    const temp = world.app.git.paths.tempRoot;
    for (const entry of await readdir(temp).catch(() => [] as string[])) {
      expect(path.join(temp, entry).startsWith(temp)).toBe(true);
    }
  }, 240_000);
});
