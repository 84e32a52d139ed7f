import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall, Browser } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { FediverseActor, startFederatedKiln } from './support.ts';

type Json = Record<string, unknown>;

/**
 * Blocks of remote actors and servers, by a site administrator and by a repository's
 * administrator: a blocked sender's activities are refused with 403 and change nothing, and the
 * proposal gate says no to it; and the inbox's rate limit per actor.
 */
describe('federation blocks', () => {
  let kiln: TestServer;
  let boss: { token: string; password: string };
  let owner: { handle: string; token: string; password: string };
  let other: { token: string };
  let bad: FediverseActor;
  let good: FediverseActor;

  const call = async (token: string, method: string, path: string, body?: Json) => {
    const answer = await apiCall(kiln.url, path, { method, token, body });
    return { status: answer.status, json: (answer.body ?? {}) as Json };
  };
  const repoActor = (name: string) => `${kiln.url}/repos/${owner.handle}/${name}`;
  const inboxOf = (name: string) => `${kiln.url}/federation/repos/${owner.handle}/${name}/inbox`;
  let likes = 0;
  const like = (from: FediverseActor, name: string) =>
    from.send(inboxOf(name), {
      id: `${from.id}#like-${++likes}`,
      type: 'Like',
      actor: from.id,
      object: repoActor(name),
    });
  const stars = async (name: string) =>
    (await call(owner.token, 'GET', `/repos/${owner.handle}/${name}`)).json.stars_count;
  const ids: Record<string, string> = {};
  const mayPropose = (actor: string, name = 'open') =>
    kiln.app.services.federation?.proposalGate.mayPropose(actor, ids[name] ?? '');

  beforeAll(async () => {
    [bad, good] = [new FediverseActor(), new FediverseActor()];
    await Promise.all([bad.start(), good.start()]);
    kiln = await startFederatedKiln({ SERVICE_ADMIN_HANDLES: 'blockboss' });
    const made = await kiln.make.user({ handle: 'blockboss' });
    boss = { token: await kiln.make.token(made.user), password: made.password };
    const someone = await kiln.make.userWithToken();
    owner = { handle: someone.user.handle, token: someone.token, password: someone.password };
    other = { token: (await kiln.make.userWithToken()).token };
    for (const name of ['open', 'other', 'hidden']) {
      const made = await call(owner.token, 'POST', '/user/repos', { name });
      expect(made.status).toBe(201);
      const repo = await kiln.app.services.repos.get(someone.user, owner.handle, name);
      ids[name] = repo.repo.id;
    }
  });
  afterAll(async () => {
    await kiln?.close();
    await Promise.all([bad?.stop(), good?.stop()]);
  });

  it('only a site administrator manages site blocks (403), and a bad target is 422', async () => {
    const path = '/admin/federation/blocks';
    expect((await call(owner.token, 'GET', path)).status).toBe(403);
    const asOwner = await call(owner.token, 'POST', path, { kind: 'actor', target: bad.id });
    expect(asOwner.status).toBe(403);
    const nonsense = await call(boss.token, 'POST', path, { kind: 'actor', target: 'bob' });
    expect(nonsense.status).toBe(422);
    expect(JSON.stringify(nonsense.json)).toContain('not the URL of an actor');
    expect((await call(boss.token, 'GET', path)).json).toEqual({ actors: [], hosts: [] });
  });

  it('a site block of an actor refuses its activities with 403 and keeps nothing', async () => {
    expect((await like(bad, 'open')).status).toBe(202);
    expect(await stars('open')).toBe(1);
    expect(await mayPropose(bad.id)).toEqual({ ok: true });
    // Typed in another spelling: upper case, a trailing slash.
    const typed = `${bad.id.toUpperCase().replace('HTTP://', 'http://')}/`;
    const made = await call(boss.token, 'POST', '/admin/federation/blocks', {
      kind: 'actor',
      target: typed,
    });
    expect(made.status).toBe(201);
    expect(made.json.target).toBe(bad.id);
    const refused = await like(bad, 'other');
    expect(refused.status).toBe(403);
    expect(await refused.text()).toBe('you are blocked on this server');
    expect(await stars('other')).toBe(0);
    expect(
      (
        await bad.send(`${kiln.url}/federation/inbox`, {
          type: 'Like',
          actor: bad.id,
          object: repoActor('other'),
          id: `${bad.id}#x`,
        })
      ).status,
    ).toBe(403);
    expect(await mayPropose(bad.id)).toEqual({
      ok: false,
      reason: 'you are blocked on this server',
    });
    // Another actor is not touched.
    expect((await like(good, 'other')).status).toBe(202);
    expect(await mayPropose(good.id)).toEqual({ ok: true });
    const listed = (await call(boss.token, 'GET', '/admin/federation/blocks')).json;
    expect((listed.actors as Json[]).map((block) => block.target)).toEqual([bad.id]);
    const query = `kind=actor&target=${encodeURIComponent(bad.id)}`;
    expect((await call(boss.token, 'DELETE', `/admin/federation/blocks?${query}`)).status).toBe(
      204,
    );
    expect((await call(boss.token, 'DELETE', `/admin/federation/blocks?${query}`)).status).toBe(
      404,
    );
    expect((await like(bad, 'other')).status).toBe(202);
  });

  it('a site block of a server holds for its actors, and a server block shows on the page', async () => {
    const host = new URL(bad.id).host;
    const made = await call(boss.token, 'POST', '/admin/federation/blocks', {
      kind: 'host',
      target: host,
    });
    expect(made.status).toBe(201);
    expect((await like(bad, 'open')).status).toBe(403);
    expect((await mayPropose(bad.id))?.ok).toBe(false);
    expect((await like(good, 'open')).status).toBe(202);
    expect((await call(boss.token, 'GET', '/admin/federation/blocks')).json.hosts).toEqual([host]);
    const query = `kind=host&target=${encodeURIComponent(host)}`;
    expect((await call(boss.token, 'DELETE', `/admin/federation/blocks?${query}`)).status).toBe(
      204,
    );
    expect((await like(bad, 'open')).status).toBe(202);
  });

  it('a repository administrator blocks an actor from that repository only', async () => {
    const path = `/repos/${owner.handle}/open/federation/blocks`;
    // Someone who may not administer the repository cannot see or change its blocks.
    expect((await call(other.token, 'POST', path, { kind: 'actor', target: bad.id })).status).toBe(
      403,
    );
    const made = await call(owner.token, 'POST', path, { kind: 'actor', target: bad.id });
    expect(made.status).toBe(201);
    expect((await like(bad, 'open')).status).toBe(403);
    expect((await like(bad, 'other')).status).toBe(202);
    // Through the shared inbox, what names the repository is refused all the same.
    const shared = `${kiln.url}/federation/inbox`;
    const viaShared = (name: string) =>
      bad.send(shared, {
        id: `${bad.id}#shared-${++likes}`,
        type: 'Like',
        actor: bad.id,
        object: repoActor(name),
      });
    expect((await viaShared('open')).status).toBe(403);
    expect((await viaShared('other')).status).toBe(202);
    expect(await mayPropose(bad.id, 'open')).toEqual({
      ok: false,
      reason: 'you are blocked from this repository',
    });
    expect(await mayPropose(bad.id, 'other')).toEqual({ ok: true });
    const listed = (await call(owner.token, 'GET', path)).json as unknown as Json[];
    expect(listed.map((block) => [block.kind, block.target])).toEqual([['actor', bad.id]]);
    const query = `kind=actor&target=${encodeURIComponent(bad.id)}`;
    expect((await call(owner.token, 'DELETE', `${path}?${query}`)).status).toBe(204);
    expect(await mayPropose(bad.id, 'open')).toEqual({ ok: true });
  });

  it('a repository made private takes no proposal at once', async () => {
    expect(await mayPropose(good.id, 'hidden')).toEqual({ ok: true });
    const changed = await call(owner.token, 'PATCH', `/repos/${owner.handle}/hidden`, {
      private: true,
    });
    expect(changed.status).toBe(200);
    expect(await mayPropose(good.id, 'hidden')).toEqual({
      ok: false,
      reason: 'the repository does not take proposals from other servers',
    });
  });

  it('the pages block and unblock: the admin page for actors, the settings page for a repository', async () => {
    const signIn = async (login: string, password: string) => {
      const browser = new Browser(kiln.url);
      await browser.get('/login');
      expect((await browser.post('/login', { login, password })).status).toBe(303);
      return browser;
    };
    const admin = await signIn('blockboss', boss.password);
    expect((await admin.post('/admin/federation/actors/block', { actor: bad.id })).status).toBe(
      303,
    );
    expect(await (await admin.get('/admin/federation')).text()).toContain(
      `data-blocked-actor="${bad.id}"`,
    );
    expect((await like(bad, 'open')).status).toBe(403);
    expect((await admin.post('/admin/federation/actors/unblock', { actor: bad.id })).status).toBe(
      303,
    );
    expect((await like(bad, 'open')).status).toBe(202);

    const mine = await signIn(owner.handle, owner.password);
    const settings = `/repos/${owner.handle}/other/settings/federation`;
    expect((await mine.get(`/repos/${owner.handle}/other/settings`)).status).toBe(200);
    expect(await (await mine.get(`/repos/${owner.handle}/other/settings`)).text()).toContain(
      `href="/repos/${owner.handle}/other/settings/federation"`,
    );
    const host = new URL(bad.id).host;
    expect((await mine.post(`${settings}/block`, { kind: 'host', target: host })).status).toBe(303);
    expect(await (await mine.get(settings)).text()).toContain(`data-block="${host}"`);
    expect((await like(bad, 'other')).status).toBe(403);
    expect((await like(bad, 'open')).status).toBe(202);
    expect((await mine.post(`${settings}/unblock`, { kind: 'host', target: host })).status).toBe(
      303,
    );
    expect((await like(bad, 'other')).status).toBe(202);
    expect((await new Browser(kiln.url).get(settings)).status).not.toBe(200);
  });
});

describe('the inbox rate limit', () => {
  let kiln: TestServer;
  let sender: FediverseActor;
  let inbox: string;

  beforeAll(async () => {
    sender = new FediverseActor();
    await sender.start();
    kiln = await startFederatedKiln({
      SERVICE_FEDERATION_INBOX_LIMIT_PER_ACTOR: '3',
      SERVICE_FEDERATION_INBOX_LIMIT_PER_HOST: '1000',
    });
    inbox = `${kiln.url}/federation/inbox`;
  });
  afterAll(async () => {
    await kiln?.close();
    await sender?.stop();
  });

  it('answers 429 with Retry-After once an actor has sent its minute’s worth', async () => {
    const send = (n: number) =>
      sender.send(inbox, { id: `${sender.id}#n-${n}`, type: 'Announce', actor: sender.id });
    for (let n = 0; n < 3; n++) expect((await send(n)).status).toBe(202);
    const flooded = await send(3);
    expect(flooded.status).toBe(429);
    expect(Number(flooded.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(flooded.headers.get('retry-after'))).toBeLessThanOrEqual(20);
  });
});
