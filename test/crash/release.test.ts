/**
 * SIGKILL during a release creation that must first make its tag: after a restart every release
 * row names a tag that exists, the repository is clean (`git fsck`), the tag is either absent or
 * at the commit asked for, and creating the release again gives exactly one release on that tag.
 */
import { describe, expect, it } from 'vitest';
import {
  type CrashWorld,
  crashAndRestart,
  expectConsistent,
  killDelays,
  refSha,
  timeOf,
  useCrashWorld,
} from './support.ts';

let world: CrashWorld;
let counter = 0;

useCrashWorld(async (started) => {
  world = started;
  const created = await world.api('/user/repos', { body: { name: 'shipping', auto_init: true } });
  expect(created.status).toBe(201);
});

const create = (tag: string) => () =>
  world.api(`/repos/${world.owner.handle}/shipping/releases`, {
    body: {
      tag_name: tag,
      target_commitish: 'main',
      name: `Release ${tag}`,
      body: 'notes',
      prerelease: false,
    },
  });

describe('SIGKILL during a release creation', () => {
  it('never leaves a release without its tag, and the creation can be retried', async () => {
    const duration = await timeOf(async () =>
      expect((await create(`v0.0.${counter++}`)()).status).toBe(201),
    );
    const dir = world.app.git.paths.resolve({ owner: world.owner.handle, name: 'shipping' }).path;
    const main = await refSha(world.git, dir, 'refs/heads/main');
    for (const delay of killDelays(duration)) {
      const tag = `v1.0.${counter++}`;
      await crashAndRestart(world, create(tag), delay);
      await expectConsistent(world);
      const tagged = await refSha(world.git, dir, `refs/tags/${tag}`);
      if (tagged !== undefined) expect(tagged, `kill at ${delay} ms`).toBe(main);

      const existed =
        (await world.api(`/repos/${world.owner.handle}/shipping/releases/tags/${tag}`)).status ===
        200;
      const retried = await create(tag)();
      expect(retried.status, `retry after kill at ${delay} ms`).toBe(existed ? 409 : 201);
      const listed = await world.api(`/repos/${world.owner.handle}/shipping/releases?limit=50`);
      const tags = (listed.body as { tag_name: string }[]).map((release) => release.tag_name);
      expect(tags.filter((name) => name === tag)).toHaveLength(1);
      expect(await refSha(world.git, dir, `refs/tags/${tag}`)).toBe(main);
      await expectConsistent(world);
    }
  }, 240_000);
});
