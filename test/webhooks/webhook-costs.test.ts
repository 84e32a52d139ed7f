/**
 * What webhooks cost an instance per event: the notifier asks whether any active hook could hear
 * of a repository before building a payload, and that answer comes from memory until a hook
 * changes (on SQLite, whose change clock this process can trust), while a hook added or switched
 * on is seen by the very next event.
 */
import type { KyselyPlugin } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { TableChangeClock } from '../../src/db/change-clock.ts';
import { DeliveryStore } from '../../src/domain/webhooks/delivery.store.ts';
import { WebhookService } from '../../src/domain/webhooks/webhook.service.ts';
import { WebhookStore } from '../../src/domain/webhooks/webhook.store.ts';
import { apiClient, caller, createRepo } from '../api/fixtures.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { Receiver } from './receiver.ts';

const ENV = {
  SERVICE_WEBHOOK_ALLOWED_HOSTS: 'loopback',
  SERVICE_SECRET_KEY: 'webhook costs tests key',
  SERVICE_BASE_URL: 'http://kiln.test',
};

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start() {
  const kiln = await startTestServer(ENV);
  cleanups.push(() => kiln.close());
  const receiver = await Receiver.start();
  cleanups.push(() => receiver.close());
  const alice = await caller(kiln);
  await createRepo(kiln, alice, 'app');
  return { kiln, receiver, alice, api: apiClient(kiln) };
}

/**
 * A webhook service over the server's database that counts the queries reading `webhooks`
 * (`reads`) and those reading `webhook_deliveries` (`deliveryReads`).
 */
function countedService(kiln: TestServer) {
  const counted = { reads: 0, deliveryReads: 0 };
  const counter: KyselyPlugin = {
    transformQuery: ({ node }) => {
      const text = node.kind === 'SelectQueryNode' ? JSON.stringify(node) : '';
      if (text.includes('"webhooks"')) counted.reads += 1;
      if (text.includes('"webhook_deliveries"')) counted.deliveryReads += 1;
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  const { database, services } = kiln.app;
  const db = database.db.withPlugin(counter);
  const service = new WebhookService({
    hooks: new WebhookStore(db, new TableChangeClock(database.changes)),
    deliveries: new DeliveryStore(db, database.dialect),
    repos: services.repos,
    orgs: services.orgs,
    admins: services.admins,
    secretKey: ENV.SERVICE_SECRET_KEY,
  });
  return { service, counted };
}

describe('whether a repository has hooks', () => {
  it('is read once while no hook changes, whatever else is written', async () => {
    const { kiln, alice } = await start();
    const { service, counted } = countedService(kiln);
    const user = await kiln.app.services.users.getUser(alice.handle);
    const { repo } = await kiln.app.services.repos.require(user, alice.handle, 'app', 'admin');
    for (let round = 0; round < 10; round++) {
      expect(await service.anyActiveFor(repo)).toBe(false);
      await createRepo(kiln, alice, `other-${round}`);
    }
    // PostgreSQL has no clock to trust (other replicas write unseen): every event asks.
    expect(counted.reads).toBe(kiln.app.database.dialect === 'sqlite' ? 1 : 10);
    const owner = await service.repoOwner(user, alice.handle, 'app');
    const hook = await service.create(owner, { type: 'gitea', url: 'http://127.0.0.1:9/' });
    expect(await service.anyActiveFor(repo)).toBe(false);
    await service.update(owner, hook.wireId, { active: true });
    expect(await service.anyActiveFor(repo)).toBe(true);
    await service.update(owner, hook.wireId, { active: false });
    expect(await service.anyActiveFor(repo)).toBe(false);
  });

  it('lists hooks with their latest deliveries in two queries however many there are', async () => {
    const { kiln, alice } = await start();
    const { service, counted } = countedService(kiln);
    const user = await kiln.app.services.users.getUser(alice.handle);
    const owner = await service.repoOwner(user, alice.handle, 'app');
    const made = [];
    for (let index = 0; index < 6; index++) {
      made.push(await service.create(owner, { type: 'gitea', url: `http://127.0.0.1:9/${index}` }));
    }
    // Two deliveries for every other hook: the list shows the newer.
    const tested = new Set(made.filter((_, index) => index % 2 === 0).map((hook) => hook.wireId));
    for (const wireId of tested) {
      // (Test pushes are built by the server's own service, which knows the payloads.)
      await kiln.app.services.webhooks.sendTest(user, alice.handle, 'app', wireId);
      await kiln.app.services.webhooks.sendTest(user, alice.handle, 'app', wireId);
    }
    const before = { ...counted };
    const listed = await service.listWithLatest(owner);
    expect(counted.reads - before.reads).toBe(1);
    expect(counted.deliveryReads - before.deliveryReads).toBe(1);
    const ids = (hooks: readonly { wireId: number }[]) => hooks.map((hook) => hook.wireId).sort();
    expect(ids(listed.map(({ hook }) => hook))).toEqual(ids(made));
    for (const { hook, last } of listed) {
      const [newest] = await service.deliveries(owner, hook.wireId);
      expect(last?.id).toBe(tested.has(hook.wireId) ? newest?.id : undefined);
    }
  });

  it('hears the next event once a hook is added to an instance that had none', async () => {
    const { receiver, alice, api } = await start();
    const publish = async (tag: string) => {
      const response = await api(`/repos/${alice.handle}/app/releases`, {
        token: alice.token,
        method: 'POST',
        body: { tag_name: tag },
      });
      expect(response.status).toBe(201);
    };
    await publish('v1');
    const added = await api(`/repos/${alice.handle}/app/hooks`, {
      token: alice.token,
      method: 'POST',
      body: {
        type: 'gitea',
        config: { url: receiver.url, content_type: 'json' },
        events: ['release'],
        active: true,
      },
    });
    expect(added.status).toBe(201);
    await publish('v2');
    const [entry] = await receiver.waitFor(() => true);
    expect(JSON.parse(entry?.body ?? '{}').release.tag_name).toBe('v2');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received).toHaveLength(1);
  });
});
