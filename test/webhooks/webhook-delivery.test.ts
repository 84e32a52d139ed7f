/**
 * How deliveries behave, seen from a real receiver: a 5xx is retried, a hanging receiver is cut
 * at the timeout, a restart in the middle loses nothing, form hooks post `payload=<json>`, hooks
 * that keep failing switch themselves off, the log keeps each attempt, and loopback targets are
 * refused unless the operator allowed them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { DeliveryStore } from '../../src/domain/webhooks/delivery.store.ts';
import { queuedRow } from '../../src/domain/webhooks/webhook.service.ts';
import { apiClient, type Caller, caller, createRepo } from '../api/fixtures.ts';
import { createTestDatabase } from '../support/database.ts';
import { json } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { Receiver } from './receiver.ts';

const FAST = {
  SERVICE_WEBHOOK_ALLOWED_HOSTS: 'loopback',
  SERVICE_WEBHOOK_RETRY_DELAY: '50ms',
  SERVICE_WEBHOOK_TIMEOUT: '500ms',
  SERVICE_SECRET_KEY: 'delivery tests key',
  SERVICE_BASE_URL: 'http://kiln.test',
};

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(
  env: Record<string, string> = FAST,
  answer?: (index: number) => number | 'hang',
) {
  const kiln = await startTestServer(env);
  cleanups.push(() => kiln.close());
  const receiver = await Receiver.start(answer);
  cleanups.push(() => receiver.close());
  const alice = await caller(kiln);
  await createRepo(kiln, alice, 'app');
  return { kiln, receiver, alice, api: apiClient(kiln) };
}

async function addHook(
  api: ReturnType<typeof apiClient>,
  alice: Caller,
  config: Record<string, string>,
  events = ['push', 'release'],
) {
  const response = await api(`/repos/${alice.handle}/app/hooks`, {
    token: alice.token,
    method: 'POST',
    body: { type: 'gitea', config: { content_type: 'json', ...config }, events, active: true },
  });
  expect(response.status).toBe(201);
  return json(response);
}

/** The delivery log of a repository hook, newest first. */
async function logOf(kiln: TestServer, alice: Caller, wireId: number) {
  const user = await kiln.app.services.users.getUser(alice.handle);
  const { webhooks } = kiln.app.services;
  const owner = await webhooks.repoOwner(user, alice.handle, 'app');
  return webhooks.deliveries(owner, wireId);
}

async function release(api: ReturnType<typeof apiClient>, alice: Caller, tag: string) {
  const response = await api(`/repos/${alice.handle}/app/releases`, {
    token: alice.token,
    method: 'POST',
    body: { tag_name: tag },
  });
  expect(response.status).toBe(201);
}

/** Publishes each release after the last one's delivery was sent and recorded. */
async function releaseOneByOne(
  { kiln, receiver, alice, api }: Awaited<ReturnType<typeof setUp>>,
  wireId: number,
  tags: readonly string[],
) {
  for (const [index, tag] of tags.entries()) {
    await release(api, alice, tag);
    await receiver.waitFor(() => true, index + 1);
    await expect.poll(async () => (await logOf(kiln, alice, wireId))[0]?.state).not.toBe('queued');
  }
}

describe('retries and timeouts', () => {
  it('retries a delivery answered 500, until 200, and records both attempts', async () => {
    const { kiln, receiver, alice, api } = await setUp(FAST, (index) => (index === 0 ? 500 : 200));
    const hook = await addHook(api, alice, { url: receiver.url });
    await release(api, alice, 'v1');
    const [first, second] = await receiver.waitFor(() => true, 2);
    expect(second?.headers['x-gitea-delivery']).toBe(first?.headers['x-gitea-delivery']);
    expect(second?.body).toBe(first?.body);
    await expect.poll(async () => (await logOf(kiln, alice, hook.id))[0]?.state).toBe('delivered');
    const [log] = await logOf(kiln, alice, hook.id);
    expect(log).toMatchObject({ attempts: 2, responseStatus: 200, responseBody: 'answer 1' });
    expect(log?.responseHeaders['x-receiver']).toBe('yes');
    expect(log?.requestHeaders['x-gitea-event']).toBe('release');
  });

  it('cuts a receiver that never answers at the timeout and tries again', async () => {
    const { receiver, alice, api } = await setUp(FAST, (index) => (index === 0 ? 'hang' : 200));
    await addHook(api, alice, { url: receiver.url });
    const started = Date.now();
    await release(api, alice, 'v1');
    await receiver.waitFor(() => true, 2);
    // The second attempt came after the first was abandoned, not after the receiver answered.
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
  });

  it('switches a hook off after the configured failures in a row', async () => {
    const env = { ...FAST, SERVICE_WEBHOOK_MAX_ATTEMPTS: '1', SERVICE_WEBHOOK_DISABLE_AFTER: '2' };
    const { receiver, alice, api } = await setUp(env, () => 503);
    const hook = await addHook(api, alice, { url: receiver.url });
    await release(api, alice, 'v1');
    await release(api, alice, 'v2');
    await receiver.waitFor(() => true, 2);
    const path = `/repos/${alice.handle}/app/hooks/${hook.id}`;
    await expect
      .poll(async () => (await json(await api(path, { token: alice.token }))).active)
      .toBe(false);
    await release(api, alice, 'v3');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toHaveLength(2);
  });

  it('keeps a hook on however many deliveries in a row succeed', async () => {
    // One failure would switch it off; successes are no failures.
    const env = { ...FAST, SERVICE_WEBHOOK_DISABLE_AFTER: '1' };
    const { kiln, receiver, alice, api } = await setUp(env);
    const hook = await addHook(api, alice, { url: receiver.url });
    await releaseOneByOne({ kiln, receiver, alice, api }, hook.id, ['v1', 'v2', 'v3', 'v4']);
    const path = `/repos/${alice.handle}/app/hooks/${hook.id}`;
    expect((await json(await api(path, { token: alice.token }))).active).toBe(true);
    await release(api, alice, 'v5');
    await receiver.waitFor(() => true, 5);
  });

  it('counts failures in a row from the last success', async () => {
    // Succeeds, then fails twice: two in a row, never three, so the hook stays on.
    const answers = [200, 503, 503, 200];
    const env = { ...FAST, SERVICE_WEBHOOK_MAX_ATTEMPTS: '1', SERVICE_WEBHOOK_DISABLE_AFTER: '3' };
    const { kiln, receiver, alice, api } = await setUp(env, (index) => answers[index] ?? 200);
    const hook = await addHook(api, alice, { url: receiver.url });
    await releaseOneByOne({ kiln, receiver, alice, api }, hook.id, ['v1', 'v2', 'v3', 'v4']);
    const path = `/repos/${alice.handle}/app/hooks/${hook.id}`;
    expect((await json(await api(path, { token: alice.token }))).active).toBe(true);
  });
});

describe('formats and safety', () => {
  it('posts payload=<json> for form hooks, signed over the form body', async () => {
    const { receiver, alice, api } = await setUp();
    await addHook(api, alice, { url: receiver.url, content_type: 'form', secret: 'abc' });
    await release(api, alice, 'v1');
    const [entry] = await receiver.waitFor(() => true);
    expect(entry?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const payload = JSON.parse(new URLSearchParams(entry?.body).get('payload') ?? '');
    expect(payload.action).toBe('published');
    const { createHmac } = await import('node:crypto');
    expect(entry?.headers['x-gitea-signature']).toBe(
      createHmac('sha256', 'abc')
        .update(entry?.body ?? '')
        .digest('hex'),
    );
  });

  it('refuses a loopback receiver by default and records why', async () => {
    const env = {
      SERVICE_SECRET_KEY: 'another delivery tests key',
      SERVICE_WEBHOOK_RETRY_DELAY: '50ms',
    };
    const { kiln, receiver, alice, api } = await setUp(env);
    for (const host of [receiver.url, receiver.url.replace('127.0.0.1', 'localhost')]) {
      const hook = await addHook(api, alice, { url: host });
      const test = await api(`/repos/${alice.handle}/app/hooks/${hook.id}/tests`, {
        token: alice.token,
        method: 'POST',
      });
      expect(test.status).toBe(204);
      await expect
        .poll(async () => (await logOf(kiln, alice, hook.id))[0]?.error)
        .toMatch(/not an allowed webhook address|no allowed webhook address/);
    }
    expect(receiver.received).toHaveLength(0);
  });
});

/**
 * Settings for servers that share one database and data directory (replicas, or one server
 * after another), and a receiver; all removed after the test.
 */
async function sharedStorage() {
  const database = await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'kiln-hooks-shared-'));
  cleanups.push(async () => {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const env = {
    ...FAST,
    SERVICE_DATA_DIR: dataDir,
    ...(database.url ? { SERVICE_DATABASE_URL: database.url } : {}),
  };
  const receiver = await Receiver.start();
  cleanups.push(() => receiver.close());
  return { env, receiver };
}

describe('durability', () => {
  it('sends each queued delivery once when two servers drain one queue', async () => {
    const { env, receiver } = await sharedStorage();
    const first = await startTestServer(env);
    cleanups.push(() => first.close());
    const alice = await caller(first);
    await createRepo(first, alice, 'app');
    const hook = await addHook(apiClient(first), alice, { url: receiver.url });
    const second = await startTestServer(env);
    cleanups.push(() => second.close());
    // Queued out of reach, then made due at once, so both workers find the whole queue.
    const { db } = first.app.database;
    const [stored] = await db.selectFrom('webhooks').select('id').execute();
    const count = 300;
    const rows = Array.from({ length: count }, (_, index) => ({
      ...queuedRow(stored?.id ?? '', 'push', 'push', `{"n":${index}}`, Date.now()),
      next_attempt_at: Number.MAX_SAFE_INTEGER,
    }));
    await new DeliveryStore(db).enqueue(rows);
    await db.updateTable('webhook_deliveries').set({ next_attempt_at: 0 }).execute();
    const received = await receiver.waitFor(() => true, count, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ids = received.map((entry) => entry.headers['x-gitea-delivery']);
    expect(receiver.received).toHaveLength(count);
    expect(new Set(ids).size).toBe(count);
    await expect
      .poll(async () => (await logOf(first, alice, hook.id)).every((d) => d.state === 'delivered'))
      .toBe(true);
  });

  it('delivers after a restart what was queued before it', async () => {
    const { env, receiver } = await sharedStorage();
    // The first server can only reach a closed port: the attempt fails and waits an hour.
    const first = await startTestServer({ ...env, SERVICE_WEBHOOK_RETRY_DELAY: '1h' });
    const alice = await caller(first);
    await createRepo(first, alice, 'app');
    const api = apiClient(first);
    const hook = await addHook(api, alice, { url: receiver.url.replace(/:\d+$/, ':9') });
    await release(api, alice, 'v1');
    await expect.poll(async () => (await logOf(first, alice, hook.id))[0]?.attempts).toBe(1);
    const patched = await api(`/repos/${alice.handle}/app/hooks/${hook.id}`, {
      token: alice.token,
      method: 'PATCH',
      body: { config: { url: receiver.url } },
    });
    expect(patched.status).toBe(200);
    // Due now; whoever runs next must send it.
    await first.app.database.db
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: 0 })
      .execute();
    await first.close();
    expect(receiver.received).toHaveLength(0);
    const second = await startTestServer(env);
    cleanups.push(() => second.close());
    const [entry] = await receiver.waitFor(() => true);
    expect(JSON.parse(entry?.body ?? '{}').action).toBe('published');
  });

  it('leaves what a one-shot process queues to the serving ones', async () => {
    const { env, receiver } = await sharedStorage();
    const first = await startTestServer(env);
    const alice = await caller(first);
    await createRepo(first, alice, 'app');
    await addHook(apiClient(first), alice, { url: receiver.url });
    const config = first.app.config;
    await first.close();
    // Like `kiln user create` or `kiln dump`: the app without a server.
    const oneShot = await createApp(config);
    const user = await oneShot.services.users.getUser(alice.handle);
    await oneShot.services.releases.create(user, alice.handle, 'app', { tagName: 'v1' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await oneShot.close();
    expect(receiver.received).toHaveLength(0);
    const second = await startTestServer(env);
    cleanups.push(() => second.close());
    const [entry] = await receiver.waitFor(() => true);
    expect(JSON.parse(entry?.body ?? '{}').action).toBe('published');
  });
});
