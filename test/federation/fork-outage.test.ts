import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectGiteaDefinition } from '../api/gitea-swagger.ts';
import { eventually } from '../support/eventually.ts';
import type { TestServer } from '../support/server.ts';
import { Receiver } from '../webhooks/receiver.ts';
import { type Account, forkAcross } from './fork-across.ts';
import { OutageProxy } from './outage-proxy.ts';
import { AP, apiCall } from './support.ts';

type Json = Record<string, unknown>;

/** The fork's record, its sync as a push, its size cap, and an upstream that is away a while. */
describe('remote forks: an upstream away, the fork record, sync and size', () => {
  let fixture: Awaited<ReturnType<typeof forkAcross>>;
  let a: TestServer;
  let b: TestServer;
  let proxy: OutageProxy;
  let receiver: Receiver;
  let author: Account;
  let reader: Account;

  const pushToB = async (name: string, files: Record<string, string>) => {
    const sha = await fixture.git.commit(fixture.work, files, 'upstream change');
    await fixture.pushTo(b, author, name, 'main');
    return sha;
  };
  const upstream = (name: string) => `${proxy.url}/repos/${author.handle}/${name}`;
  const forksOnB = async (name: string) =>
    (await apiCall(b, author.token, 'GET', `/repos/${author.handle}/${name}/federation/forks`))
      .json as unknown as Json[];

  beforeAll(async () => {
    // B is reached only through the proxy: its base URL is the proxy's, so its actors, inboxes
    // and clone addresses all go through it. The fork itself is made by the first test.
    proxy = new OutageProxy();
    await proxy.start();
    fixture = await forkAcross({
      envA: {
        SERVICE_WEBHOOK_ALLOWED_HOSTS: 'loopback',
        SERVICE_FEDERATION_MAX_FORK_SIZE: String(2 * 1024 * 1024),
      },
      envB: { SERVICE_BASE_URL: proxy.url },
      started: (_, upstreamServer) => {
        proxy.target = upstreamServer.url;
      },
      fork: false,
    });
    ({ a, b, author, proposer: reader } = fixture);
    receiver = await Receiver.start();
    for (const name of ['big', 'closing']) {
      expect((await apiCall(b, author.token, 'POST', '/user/repos', { name })).status).toBe(201);
    }
    await pushToB('closing', { 'README.md': 'closing\n' });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([fixture?.close(), proxy?.stop(), receiver?.close()]);
  });

  it('a fork announced while its upstream is away is listed once the upstream is back', async () => {
    proxy.downAtFirstInbox = true;
    const forked = await apiCall(a, reader.token, 'POST', '/user/federation/forks', {
      actor: upstream('tool'),
    });
    expect(forked.status).toBe(201);
    expect(await eventually(async () => proxy.down && proxy.cut > 0)).toBe(true);
    // Away for a while: the delivery fails and waits in A's queue.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await forksOnB('tool')).toEqual([]);
    proxy.up();
    expect(await eventually(async () => (await forksOnB('tool')).length === 1, 30_000)).toBe(true);
    expect((await forksOnB('tool'))[0]?.actor).toBe(`${a.url}/repos/${reader.handle}/tool`);
  }, 60_000);

  it('the fork’s record says fork, with its remote parent built from the upstream’s actor', async () => {
    const record = (await apiCall(a, reader.token, 'GET', `/repos/${reader.handle}/tool`)).json;
    expect(record.fork).toBe(true);
    const parent = record.parent as Json;
    const host = new URL(proxy.url).host;
    expect(parent.full_name).toBe(`${author.handle}@${host}/tool`);
    expect(parent.name).toBe('tool');
    expect((parent.owner as Json).login).toBe(`${author.handle}@${host}`);
    expect(parent.html_url).toBe(upstream('tool'));
    expect(parent.clone_url).toBe(`${proxy.url}/${author.handle}/tool.git`);
    expect(parent.private).toBe(false);
    // Gitea's clients read it as they read any Repository object.
    expectGiteaDefinition(record, 'Repository');
    expectGiteaDefinition(parent, 'Repository');
    // In lists too.
    const mine = (await apiCall(a, reader.token, 'GET', '/user/repos')).json as unknown as Json[];
    expect(mine.find((repo) => repo.name === 'tool')?.fork).toBe(true);
    const page = await (await fetch(`${a.url}/${reader.handle}/tool`)).text();
    expect(page).toContain(`forked from <a href="${upstream('tool')}" rel="nofollow">`);
  });

  it('syncing the fork is a push: its webhooks hear it as they hear a git push', async () => {
    const hook = await apiCall(a, reader.token, 'POST', `/repos/${reader.handle}/tool/hooks`, {
      type: 'gitea',
      config: { url: receiver.url, content_type: 'json' },
      events: ['push'],
      active: true,
    });
    expect(hook.status).toBe(201);
    const sha = await pushToB('tool', { 'more.txt': 'more\n' });
    const synced = await apiCall(
      a,
      reader.token,
      'POST',
      `/repos/${reader.handle}/tool/merge-upstream`,
      {
        branch: 'main',
      },
    );
    expect(synced.json).toEqual({ merge_type: 'fast-forward' });
    const pushes = () =>
      receiver.received
        .map((entry) => JSON.parse(entry.body) as Json)
        .filter((body) => body.ref === 'refs/heads/main' && body.after === sha);
    expect(await eventually(async () => pushes().length === 1)).toBe(true);
    expect((pushes()[0]?.pusher as Json | undefined)?.login).toBe(reader.handle);
    // The fork's followers hear it too: a Push in the fork's outbox.
    const outbox = `${a.url}/federation/repos/${reader.handle}/tool/outbox?page=1`;
    const pushed = async () =>
      (
        ((await (await fetch(outbox, { headers: { accept: AP } })).json()) as Json)
          .orderedItems as Json[]
      ).some((item) => item.type === 'Push');
    expect(await eventually(pushed)).toBe(true);
  });

  it('a fork past the size cap is stopped: 413 with the reason, and nothing is left', async () => {
    await pushToB('big', { 'noise.bin': randomBytes(3 * 1024 * 1024).toString('base64') });
    const forked = await apiCall(a, reader.token, 'POST', '/user/federation/forks', {
      actor: upstream('big'),
    });
    expect(forked.status).toBe(413);
    expect(JSON.stringify(forked.json)).toContain('larger than the 2097152 bytes');
    expect((await apiCall(a, reader.token, 'GET', `/repos/${reader.handle}/big`)).status).toBe(404);
  }, 60_000);

  it('a sync that would grow the fork past the cap is 413 and moves nothing', async () => {
    const before = (
      await apiCall(a, reader.token, 'GET', `/repos/${reader.handle}/tool/branches/main`)
    ).json.commit as Json;
    await pushToB('tool', { 'noise.bin': randomBytes(3 * 1024 * 1024).toString('base64') });
    const synced = await apiCall(
      a,
      reader.token,
      'POST',
      `/repos/${reader.handle}/tool/merge-upstream`,
      {
        branch: 'main',
      },
    );
    expect(synced.status).toBe(413);
    const after = (
      await apiCall(a, reader.token, 'GET', `/repos/${reader.handle}/tool/branches/main`)
    ).json.commit as Json;
    expect(after.id).toBe(before.id);
  }, 60_000);

  it('an upstream made private stops at once: no forks collection, no new fork, forks forgotten', async () => {
    const collection = `${proxy.url}/federation/repos/${author.handle}/closing/forks`;
    const first = await apiCall(a, reader.token, 'POST', '/user/federation/forks', {
      actor: upstream('closing'),
    });
    expect(first.status).toBe(201);
    expect(await eventually(async () => (await forksOnB('closing')).length === 1)).toBe(true);
    const setPrivate = async (value: boolean) =>
      (
        await apiCall(b, author.token, 'PATCH', `/repos/${author.handle}/closing`, {
          private: value,
        })
      ).status;
    expect(await setPrivate(true)).toBe(200);
    expect((await fetch(collection, { headers: { accept: AP } })).status).toBe(404);
    const again = await apiCall(a, reader.token, 'POST', '/user/federation/forks', {
      actor: upstream('closing'),
      name: 'closing-two',
    });
    expect(again.status).toBe(422);
    const two = await apiCall(a, reader.token, 'GET', `/repos/${reader.handle}/closing-two`);
    expect(two.status).toBe(404);
    // Its forks are forgotten with its followers: made public again, it starts afresh.
    expect(await eventually(async () => (await forksOnB('closing')).length === 0)).toBe(true);
    expect(await setPrivate(false)).toBe(200);
    const shown = await fetch(collection, { headers: { accept: AP } });
    expect(shown.status).toBe(200);
    expect(((await shown.json()) as Json).totalItems).toBe(0);
  });
});
