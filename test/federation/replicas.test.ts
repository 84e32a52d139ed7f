/**
 * Two Kiln processes behind one address, over one PostgreSQL database: both run the delivery
 * queue's worker, and every activity still reaches every remote inbox exactly once.
 *
 * Runs only when KILN_TEST_DATABASE_URL names a PostgreSQL (`scripts/with-postgres.sh npx vitest
 * run test/federation/replicas.test.ts`); SQLite is a single-process database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeployment, type Deployment, type KilnProcess } from '../replicas/kiln-process.ts';
import { postgresAdminUrl } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';
import type { Factories } from '../support/factories.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import { FediverseActor, freePort } from './support.ts';

/** Enough inboxes that both workers have plenty to race for. */
const FOLLOWERS = 10;
const PUSHES = 4;

describe.skipIf(!postgresAdminUrl)('federation delivery with two replicas', () => {
  let deployment: Deployment;
  let replicas: KilnProcess[] = [];
  let git: GitClient;
  let make: Factories;
  let base: string;
  const remotes: FediverseActor[] = [];

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    deployment = await createDeployment({
      SERVICE_BASE_URL: base,
      SERVICE_SECRET_KEY: 'federation replicas secret key',
      SERVICE_FEDERATION_ALLOW_PRIVATE_ADDRESSES: 'true',
    });
    // Migrations run once, here, before the servers start on the migrated database.
    ({ make } = await deployment.open());
    replicas = [
      await deployment.start({ SERVICE_HTTP_PORT: String(port) }),
      await deployment.start(),
    ];
    git = await GitClient.create();
    for (let i = 0; i < FOLLOWERS; i++) {
      const remote = new FediverseActor();
      await remote.start();
      remotes.push(remote);
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.all(remotes.map((remote) => remote.stop()));
    await git?.dispose();
    await deployment?.dispose();
  });

  it('each activity of a push reaches each follower once', async () => {
    const [first, second] = replicas as [KilnProcess, KilnProcess];
    const handle = 'fedreplica';
    const { user, token } = await make.userWithToken({ handle });
    const created = await fetch(`${first.url}/api/v1/user/repos`, {
      method: 'POST',
      headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'shared', auto_init: true }),
    });
    expect(created.status).toBe(201);
    const repoActor = `${base}/repos/${user.handle}/shared`;
    // Followers arrive through either replica.
    await Promise.all(
      remotes.map(async (remote, i) => {
        const via = (i % 2 === 0 ? first : second).url;
        const response = await remote.send(`${via}/federation/repos/${user.handle}/shared/inbox`, {
          '@context': 'https://www.w3.org/ns/activitystreams',
          id: `${remote.id}#follow`,
          type: 'Follow',
          actor: remote.id,
          object: repoActor,
        });
        expect(response.status).toBe(202);
      }),
    );
    const url = (replica: KilnProcess) =>
      repoUrl(replica.url, user.handle, 'shared', { token, as: 'username' });
    const work = await git.clone(url(first));
    for (let i = 0; i < PUSHES; i++) {
      await git.commit(work, { [`f${i}.txt`]: String(i) }, `change ${i}`);
      await git.ok(['push', '-q', url(i % 2 === 0 ? first : second), 'HEAD:main'], { cwd: work });
    }
    // Each push publishes a Push and a Create{Note}; each follow is answered with an Accept.
    const expected = 1 + 2 * PUSHES;
    const all = await eventually(
      async () => remotes.every((remote) => remote.received.length >= expected),
      60_000,
    );
    expect(all).toBe(true);
    // Give a duplicate the time it would need to arrive.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    for (const remote of remotes) {
      const ids = remote.received.map((r) => String(r.activity.id));
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toHaveLength(expected);
      const types = remote.received.map((r) => String(r.activity.type)).sort();
      expect(types.filter((type) => type === 'Push')).toHaveLength(PUSHES);
    }
  }, 180_000);
});
