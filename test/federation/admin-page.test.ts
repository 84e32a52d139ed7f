import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { Browser } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { FediverseActor, startFederatedKiln } from './support.ts';

const AS = 'https://www.w3.org/ns/activitystreams';

/** `/admin/federation`: the servers Kiln knows, and blocking one from the page. */
describe('the federation admin page', () => {
  let kiln: TestServer;
  let live: FediverseActor;
  let dead: FediverseActor;
  let admin: Browser;
  let plain: Browser;
  let token: string;
  let userPage: string;
  let inbox: string;

  const signIn = async (login: string, password: string) => {
    const browser = new Browser(kiln.url);
    await browser.get('/login');
    expect((await browser.post('/login', { login, password })).status).toBe(303);
    return browser;
  };
  /** The text of each cell of the row of `host`, or undefined when it has none. */
  const row = async (host: string) => {
    const html = await (await admin.get('/admin/federation')).text();
    const at = html.indexOf(`data-host="${host}"`);
    if (at < 0) return undefined;
    const tr = html.slice(at, html.indexOf('</tr>', at));
    return [...tr.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) =>
      (m[1] ?? '').replace(/<[^>]+>/g, '').trim(),
    );
  };
  const follow = (remote: FediverseActor, name: string) =>
    remote.send(inbox, {
      '@context': AS,
      id: `${remote.id}#${name}`,
      type: 'Follow',
      actor: remote.id,
      object: userPage,
    });
  const createRepo = (name: string) =>
    fetch(`${kiln.url}/api/v1/user/repos`, {
      method: 'POST',
      headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    });

  beforeAll(async () => {
    live = new FediverseActor();
    dead = new FediverseActor();
    await Promise.all([live.start(), dead.start()]);
    kiln = await startFederatedKiln({ SERVICE_ADMIN_HANDLES: 'fedboss' });
    const boss = await kiln.make.user({ handle: 'fedboss' });
    const someone = await kiln.make.userWithToken();
    token = someone.token;
    userPage = `${kiln.url}/${someone.user.handle}`;
    inbox = `${kiln.url}/federation/users/${someone.user.handle}/inbox`;
    admin = await signIn('fedboss', boss.password);
    plain = await signIn(someone.user.handle, someone.password);
  });
  afterAll(async () => {
    await kiln?.close();
    await Promise.all([live?.stop(), dead?.stop()]);
  });

  it('is missing to everyone but an instance admin', async () => {
    expect((await new Browser(kiln.url).get('/admin/federation')).status).toBe(404);
    expect((await plain.get('/admin/federation')).status).toBe(404);
    expect((await plain.post('/admin/federation/block', { host: 'x.example' })).status).toBe(404);
    expect((await admin.get('/admin/federation')).status).toBe(200);
  });

  it('lists a server whose actor followed someone, with its actors and deliveries', async () => {
    expect((await follow(live, 'f1')).status).toBe(202);
    const host = new URL(live.id).host;
    const cells = await row(host);
    expect(cells?.[0]).toBe(host);
    expect(cells?.[1]).toBe('ok');
    expect(cells?.[2]).toBe('1');
    expect(cells?.[4]).toBe('1');
  });

  it('counts deliveries waiting for a server that is down, and drops them on a block', async () => {
    expect((await follow(dead, 'f2')).status).toBe(202);
    expect(
      await eventually(async () => dead.received.some((r) => r.activity.type === 'Accept')),
    ).toBe(true);
    await dead.stop();
    const host = new URL(dead.id).host;
    expect((await createRepo('announced')).status).toBe(201);
    expect(await eventually(async () => (await row(host))?.[6] === '1 (1 retrying)')).toBe(true);
    const blocked = await admin.post('/admin/federation/block', { host });
    expect(blocked.status).toBe(303);
    const cells = await row(host);
    expect(cells?.[1]).toBe('blocked');
    expect(cells?.[6]).toBe('0');
  });

  it('refuses a blocked server (403) and delivers nothing to it until it is unblocked', async () => {
    const host = new URL(live.id).host;
    // What earlier tests queued for it goes first: a delivery already on its way when the block
    // lands is not called back, and would count against the block.
    expect(await eventually(async () => (await row(host))?.[6] === '0')).toBe(true);
    expect((await admin.post('/admin/federation/block', { host })).status).toBe(303);
    expect((await follow(live, 'f3')).status).toBe(403);
    const before = live.received.length;
    expect((await createRepo('quiet')).status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(live.received.length).toBe(before);
    expect((await admin.post('/admin/federation/unblock', { host })).status).toBe(303);
    expect((await row(host))?.[1]).toBe('ok');
    expect((await follow(live, 'f4')).status).toBe(202);
  });

  it('answers a malformed host with a message', async () => {
    await admin.post('/admin/federation/block', { host: 'not a host!' });
    const html = await (await admin.get('/admin/federation')).text();
    expect(html).toContain('is not a host name');
  });
});
