import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import type { TestServer } from '../support/server.ts';
import { startTwoKilns } from './support.ts';

/** The REST twin of the fediverse settings page: a token holder on A follows and stars on B. */
describe('following and starring through /api/v1/user/federation', () => {
  let a: TestServer;
  let b: TestServer;
  let token: string;
  let repoActor: string;
  let authorHandle: string;

  const api = (method: string, path: string, body?: unknown, auth = true) =>
    fetch(`${a.url}/api/v1/user/federation${path}`, {
      method,
      headers: {
        ...(auth ? { authorization: `token ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const onB = async (path: string) =>
    (await (await fetch(`${b.url}${path}`)).json()) as Record<string, number>;

  beforeAll(async () => {
    ({ a, b, authorHandle, repoActor } = await startTwoKilns());
    token = (await a.make.userWithToken()).token;
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  it('follows a repository by URL and sees the follow accepted', async () => {
    const response = await api('POST', '/following', { actor: repoActor });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ actor: repoActor, state: 'pending' });
    expect(
      await eventually(async () => {
        const list = (await (await api('GET', '/following')).json()) as { state: string }[];
        return list.length === 1 && list[0]?.state === 'accepted';
      }),
    ).toBe(true);
    expect((await onB(`/federation/repos/${authorHandle}/tool/followers`)).totalItems).toBe(1);
    const query = `?actor=${encodeURIComponent(repoActor)}`;
    expect((await api('DELETE', `/following${query}`)).status).toBe(204);
    expect(await (await api('GET', '/following')).json()).toEqual([]);
    expect(
      await eventually(
        async () =>
          (await onB(`/federation/repos/${authorHandle}/tool/followers`)).totalItems === 0,
      ),
    ).toBe(true);
  });

  it('stars and unstars a repository', async () => {
    const query = `?actor=${encodeURIComponent(repoActor)}`;
    expect((await api('POST', `/starred${query}`)).status).toBe(204);
    expect(await (await api('GET', '/starred')).json()).toEqual([repoActor]);
    const stars = async () => (await onB(`/api/v1/repos/${authorHandle}/tool`)).stars_count;
    expect(await eventually(async () => (await stars()) === 1)).toBe(true);
    expect((await api('DELETE', `/starred${query}`)).status).toBe(204);
    expect(await eventually(async () => (await stars()) === 0)).toBe(true);
  });

  it('answers a name that leads nowhere with 422, and no token with 401', async () => {
    const bad = await api('POST', '/following', { actor: 'nobody at all' });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { message: string }).message).toMatch(/name a remote actor/);
    const missing = await api('POST', '/following', { actor: `${b.url}/nobody-here` });
    expect(missing.status).toBe(422);
    expect((await api('GET', '/following', undefined, false)).status).toBe(401);
  });
});
