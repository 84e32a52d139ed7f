import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { eventually } from '../support/eventually.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import type { TestServer } from '../support/server.ts';
import { AP, startFederatedKiln } from './support.ts';

/** Two Kiln instances on 127.0.0.1: a user of A follows and stars things on B. */
describe('two Kiln instances', () => {
  let a: TestServer;
  let b: TestServer;
  let git: GitClient;
  let reader: User;
  let author: User;
  let token: string;

  const federationOf = (server: TestServer) => {
    const federation = server.app.services.federation;
    if (!federation) throw new Error('federation is off');
    return federation;
  };
  const starsOnB = async () =>
    (
      (await (await fetch(`${b.url}/api/v1/repos/${author.handle}/tool`)).json()) as {
        stars_count: number;
      }
    ).stars_count;

  beforeAll(async () => {
    [a, b] = await Promise.all([startFederatedKiln(), startFederatedKiln()]);
    git = await GitClient.create();
    reader = (await a.make.user()).user;
    const made = await b.make.userWithToken();
    author = made.user;
    token = made.token;
    const created = await fetch(`${b.url}/api/v1/user/repos`, {
      method: 'POST',
      headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'tool' }),
    });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await git?.dispose();
  });

  it('a user of A follows a repository and a user of B; B accepts both', async () => {
    const following = federationOf(a).following;
    const repoActor = await following.follow(reader, `${b.url}/repos/${author.handle}/tool`);
    const userActor = await following.follow(reader, `${b.url}/${author.handle}`);
    expect(repoActor).toBe(`${b.url}/repos/${author.handle}/tool`);
    expect(userActor).toBe(`${b.url}/${author.handle}`);
    const accepted = await eventually(async () => {
      const list = await following.following(reader);
      return list.length === 2 && list.every((entry) => entry.state === 'accepted');
    });
    expect(accepted).toBe(true);
    for (const path of [`repos/${author.handle}/tool`, `users/${author.handle}`]) {
      const followers = (await (
        await fetch(`${b.url}/federation/${path}/followers?page=1`)
      ).json()) as {
        orderedItems: string[];
      };
      expect(followers.orderedItems).toEqual([`${a.url}/${reader.handle}`]);
    }
  });

  it("a push to B's repository reaches A as a Push with the commits and the branch", async () => {
    const dir = await git.init();
    const sha = await git.commit(dir, { 'x.txt': 'x' }, 'add x');
    await git.ok(
      ['push', repoUrl(b.url, author.handle, 'tool', { token, as: 'username' }), 'main:trunk'],
      {
        cwd: dir,
      },
    );
    const following = federationOf(a).following;
    expect(
      await eventually(async () =>
        (await following.received(reader)).some((r) => r.type === 'Push'),
      ),
    ).toBe(true);
    const push = (await following.received(reader)).find((r) => r.type === 'Push');
    const activity = push?.activity as {
      actor: string;
      target: { name: string };
      object: { orderedItems: { hash: string }[] };
    };
    expect(activity.actor).toBe(`${b.url}/repos/${author.handle}/tool`);
    expect(activity.target.name).toBe('trunk');
    expect(activity.object.orderedItems.map((c) => c.hash)).toEqual([sha]);
  });

  it("a star from A raises B's star count; taking it back lowers it", async () => {
    const following = federationOf(a).following;
    const target = `${b.url}/repos/${author.handle}/tool`;
    await following.star(reader, target, true);
    expect(await eventually(async () => (await starsOnB()) === 1)).toBe(true);
    await following.star(reader, target, false);
    expect(await eventually(async () => (await starsOnB()) === 0)).toBe(true);
    await following.star(reader, target, true);
    expect(await eventually(async () => (await starsOnB()) === 1)).toBe(true);
  });

  it("B's repository made private is withdrawn from A: the follow ends and its activities go", async () => {
    const following = federationOf(a).following;
    const repoActor = `${b.url}/repos/${author.handle}/tool`;
    expect((await following.received(reader)).some((r) => r.actor === repoActor)).toBe(true);
    const hidden = await fetch(`${b.url}/api/v1/repos/${author.handle}/tool`, {
      method: 'PATCH',
      headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ private: true }),
    });
    expect(hidden.status).toBe(200);
    expect(
      await eventually(
        async () => !(await following.received(reader)).some((r) => r.actor === repoActor),
      ),
    ).toBe(true);
    expect((await following.following(reader)).map((entry) => entry.actor)).not.toContain(
      repoActor,
    );
    expect((await fetch(repoActor, { headers: { accept: AP } })).status).toBe(404);
  });

  it('an unfollow removes the follower on B', async () => {
    await federationOf(a).following.unfollow(reader, `${b.url}/${author.handle}`);
    expect(
      await eventually(async () => {
        const followers = (await (
          await fetch(`${b.url}/federation/users/${author.handle}/followers`)
        ).json()) as {
          totalItems: number;
        };
        return followers.totalItems === 0;
      }),
    ).toBe(true);
  });
});
