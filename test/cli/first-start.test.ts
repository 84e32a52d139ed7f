/**
 * A first start with no settings beyond where the data lives: `kiln serve` makes its own secret
 * key in the data directory (0600) and derives a loopback base URL, saying each in one line, so
 * that a webhook with a secret, a CI secret and following an actor on a second instance all work
 * at once. A set SERVICE_SECRET_KEY wins over the file, and `kiln doctor` says when the key in use
 * no longer opens the secrets the directory holds.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Instance,
  prepareInstance,
  type ServerProcess,
  startServerProcess,
} from '../git/server-process.ts';
import { runCli } from '../support/cli.ts';
import { eventually } from '../support/eventually.ts';

let a: Instance;
let b: Instance;
let serverA: ServerProcess | undefined;
let serverB: ServerProcess | undefined;

beforeAll(async () => {
  [a, b] = await Promise.all([
    prepareInstance('kiln-first-a-', 'alice'),
    prepareInstance('kiln-first-b-', 'bruno'),
  ]);
  [serverA, serverB] = await Promise.all([
    startServerProcess(a.env, { cwd: a.root }),
    startServerProcess(b.env, { cwd: b.root }),
  ]);
}, 90_000);
afterAll(async () => {
  await Promise.all([serverA?.stop(), serverB?.stop()]);
  await Promise.all([a?.dispose(), b?.dispose()]);
});

function call(server: ServerProcess, token: string, method: string, route: string, body?: unknown) {
  return fetch(`${server.url}/api/v1${route}`, {
    method,
    headers: {
      authorization: `token ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

describe('a first start with no settings', () => {
  it('makes a private secret key in the data directory and says where, once', async () => {
    const file = path.join(a.dataDir, 'secret-key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The base URL line follows the listening line, on the other stream.
    await eventually(async () => serverA!.log().includes('service.base-url is unset'));
    const lines = serverA!.log().split('\n');
    expect(lines.filter((line) => line.includes(file))).toHaveLength(1);
    expect(lines.filter((line) => line.includes('replicas must share it'))).toHaveLength(1);
    expect(lines.filter((line) => line.includes('service.base-url is unset'))).toHaveLength(1);
  });

  it('keeps a webhook secret and a CI secret', async () => {
    const repo = await call(serverA!, a.token, 'POST', '/user/repos', { name: 'tool' });
    expect(repo.status).toBe(201);
    const hook = await call(serverA!, a.token, 'POST', '/repos/alice/tool/hooks', {
      type: 'gitea',
      config: { url: 'https://hooks.example.test/x', content_type: 'json', secret: 's3cret' },
      events: ['push'],
      active: true,
    });
    expect(hook.status, await hook.clone().text()).toBe(201);
    const secret = await call(
      serverA!,
      a.token,
      'PUT',
      '/repos/alice/tool/actions/secrets/DEPLOY',
      {
        data: 'hunter2',
      },
    );
    expect([201, 204]).toContain(secret.status);
  });

  it('follows a repository on a second instance started the same way', async () => {
    expect((await call(serverB!, b.token, 'POST', '/user/repos', { name: 'lib' })).status).toBe(
      201,
    );
    const actor = `${serverB!.url}/repos/bruno/lib`;
    const follow = await call(serverA!, a.token, 'POST', '/user/federation/following', { actor });
    expect(follow.status, await follow.clone().text()).toBe(202);
    expect(
      await eventually(async () => {
        const answer = await call(serverA!, a.token, 'GET', '/user/federation/following');
        const list = (await answer.json()) as { state: string }[];
        return list.length === 1 && list[0]?.state === 'accepted';
      }),
    ).toBe(true);
  });

  it('gives the federation commands the address serve derived', async () => {
    const port = new URL(serverA!.url).port;
    const hosts = await runCli(['federation', 'hosts'], { ...a.env, SERVICE_HTTP_PORT: port });
    expect(hosts.stderr).toBe('');
    expect(hosts.stdout).toContain(new URL(serverB!.url).host);
  });

  it('lets a set key win, and doctor names the key that no longer opens the secrets', async () => {
    const healthy = await runCli(['doctor'], a.env);
    expect(healthy.stdout).not.toContain('secret key');
    const other = await runCli(['doctor'], {
      ...a.env,
      SERVICE_SECRET_KEY: 'another key entirely',
    });
    expect(other.code).toBe(1);
    expect(other.stdout).toMatch(/problem: .*secret key in use is not the one/);
    expect(other.stdout).toContain('fix: set SERVICE_SECRET_KEY');
  });
});
