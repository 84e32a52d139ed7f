import { generateCryptoKeyPair } from '@fedify/fedify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import type { TestServer } from '../support/server.ts';
import { AP, FediverseActor, startFederatedKiln } from './support.ts';

const AS = 'https://www.w3.org/ns/activitystreams';

/**
 * Authorized fetch both ways: Kiln signs the GETs it makes (as the instance actor), so servers
 * in Mastodon's secure mode talk to it; and with `service.federation.require-signed-fetch` Kiln
 * serves its actors and collections to signed GETs only.
 */
describe('signed fetches', () => {
  let open: TestServer;
  let strict: TestServer;
  let secure: FediverseActor;
  let blocked: FediverseActor;
  let owner: string;

  beforeAll(async () => {
    secure = new FediverseActor();
    secure.requireSignedGet = true;
    blocked = new FediverseActor();
    await Promise.all([secure.start(), blocked.start()]);
    [open, strict] = await Promise.all([
      startFederatedKiln(),
      startFederatedKiln({
        SERVICE_FEDERATION_REQUIRE_SIGNED_FETCH: 'true',
        SERVICE_FEDERATION_BLOCKED_HOSTS: new URL(blocked.id).host,
      }),
    ]);
    const made = await strict.make.userWithToken();
    owner = made.user.handle;
    const created = await fetch(`${strict.url}/api/v1/user/repos`, {
      method: 'POST',
      headers: { authorization: `token ${made.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'tool' }),
    });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    await Promise.all([open?.close(), strict?.close(), secure?.stop(), blocked?.stop()]);
  });

  it("reads a secure-mode server's actor with a GET signed by the instance actor", async () => {
    const { user } = await open.make.user();
    const target = `${open.url}/${user.handle}`;
    const response = await secure.send(`${open.url}/federation/users/${user.handle}/inbox`, {
      '@context': AS,
      id: `${secure.id}#follow-open`,
      type: 'Follow',
      actor: secure.id,
      object: target,
    });
    expect(response.status).toBe(202);
    expect(
      await eventually(async () => secure.received.some((r) => r.activity.type === 'Accept')),
    ).toBe(true);
    expect(secure.actorFetchedBy).toContain(`${open.url}/federation/actor`);
    expect(secure.actorFetchedBy).not.toContain('');
  });

  it('refuses unsigned GETs of actors and collections when signatures are required', async () => {
    for (const path of [
      `/${owner}`,
      `/repos/${owner}/tool`,
      `/federation/repos/${owner}/tool/outbox`,
      `/federation/users/${owner}/followers?page=1`,
      `/nobody-here`,
    ]) {
      const response = await fetch(`${strict.url}${path}`, { headers: { accept: AP } });
      expect(response.status, path).toBe(401);
    }
  });

  it('serves the same documents to a signed GET', async () => {
    const actor = await secure.signedGet(`${strict.url}/repos/${owner}/tool`);
    expect(actor.status).toBe(200);
    expect(((await actor.json()) as { id: string }).id).toBe(`${strict.url}/repos/${owner}/tool`);
    const outbox = await secure.signedGet(`${strict.url}/federation/users/${owner}/outbox`);
    expect(outbox.status).toBe(200);
  });

  it('refuses a bad signature with 401 and a blocked server with 403', async () => {
    const stranger = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
    const forged = await secure.signedGet(`${strict.url}/${owner}`, stranger.privateKey);
    expect(forged.status).toBe(401);
    const fromBlocked = await blocked.signedGet(`${strict.url}/${owner}`);
    expect(fromBlocked.status).toBe(403);
  });

  it('keeps the instance actor, WebFinger and the pages public', async () => {
    const instance = await fetch(`${strict.url}/federation/actor`, { headers: { accept: AP } });
    expect(instance.status).toBe(200);
    const host = new URL(strict.url).host;
    const finger = await fetch(
      `${strict.url}/.well-known/webfinger?resource=${encodeURIComponent(`acct:${owner}@${host}`)}`,
    );
    expect(finger.status).toBe(200);
    const page = await fetch(`${strict.url}/${owner}`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
  });

  it('two Kilns that both require signatures follow each other', async () => {
    const other = await startFederatedKiln({ SERVICE_FEDERATION_REQUIRE_SIGNED_FETCH: 'true' });
    try {
      const { user } = await other.make.user();
      const federation = other.app.services.federation;
      if (!federation) throw new Error('federation is off');
      await federation.following.follow(user, `${strict.url}/repos/${owner}/tool`);
      expect(
        await eventually(async () =>
          (await federation.following.following(user)).some((f) => f.state === 'accepted'),
        ),
      ).toBe(true);
    } finally {
      await other.close();
    }
  });
});
