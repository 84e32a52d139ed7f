/**
 * Request logs never carry credentials: at `info` every request is logged once, as it completes,
 * with method, path (no query string), id, status and time only, so tokens in headers, cookies
 * and legacy `?token=` queries stay out of the log whatever the request.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type App, createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/load.ts';
import { commitFiles } from '../../src/git/test-support.ts';
import { buildServer } from '../../src/http/server.ts';
import { createTestDatabase } from '../support/database.ts';
import { GitClient, repoUrl } from '../support/git.ts';

let app: App;
let url: string;
let close: () => Promise<void>;
const lines: string[] = [];

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-logging-'));
  const database = await createTestDatabase();
  writeFileSync(join(dir, 'empty.toml'), '');
  app = await createApp(
    loadConfig({
      file: join(dir, 'empty.toml'),
      env: {
        SERVICE_DATA_DIR: join(dir, 'data'),
        SERVICE_LOG_LEVEL: 'info',
        ...(database.url ? { SERVICE_DATABASE_URL: database.url } : {}),
      },
    }),
  );
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const server = await buildServer(app, { logStream });
  await server.listen({ host: '127.0.0.1', port: 0 });
  const address = server.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('server did not bind');
  url = `http://127.0.0.1:${address.port}`;
  close = async () => {
    await server.close();
    await app.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  };
});
afterAll(async () => {
  await close?.();
});

const person = (handle: string) =>
  app.services.users.createUser({
    handle,
    email: `${handle}@example.test`,
    password: 'correct horse battery',
    fullName: '',
  });

it('logs requests without any credential', async () => {
  const user = await person('logged');
  const { token } = await app.services.tokens.create(user, 'log');
  const secret = 'cookie-secret-value';
  await fetch(`${url}/api/v1/user`, { headers: { authorization: `token ${token}` } });
  await fetch(`${url}/api/v1/user`, { headers: { authorization: `Bearer ${token}` } });
  await fetch(`${url}/api/v1/version?token=${token}&access_token=${token}`);
  await fetch(`${url}/`, { headers: { cookie: `kiln_session=${secret}` } });
  await fetch(`${url}/api/v1/user`, { headers: { authorization: 'token wrong-token-value' } });
  const log = lines.join('');
  expect(log).toContain('"url":"/api/v1/user"');
  expect(log).toContain('"url":"/api/v1/version"');
  expect(log).toContain('request completed');
  for (const value of [token, secret, 'wrong-token-value', 'authorization', 'cookie']) {
    expect(log).not.toContain(value);
  }
});

it('writes one access line per request, when it completes, with method, path, status and time', async () => {
  lines.length = 0;
  const response = await fetch(`${url}/api/v1/repos/nobody/nothing`);
  expect(response.status).toBe(404);
  const entries = lines
    .join('')
    .split('\n')
    .filter((line) => line.includes('/api/v1/repos/nobody/nothing'))
    .map((line) => JSON.parse(line));
  expect(entries).toHaveLength(1);
  expect(entries[0]).toMatchObject({
    msg: 'request completed',
    req: { method: 'GET', url: '/api/v1/repos/nobody/nothing' },
    res: { statusCode: 404 },
  });
  expect(entries[0].reqId).toMatch(/^[0-9a-f-]{36}$/);
  expect(entries[0].req).not.toHaveProperty('id');
  expect(typeof entries[0].responseTime).toBe('number');
});

it('logs a streamed answer the client abandons as an aborted request, naming it', async () => {
  const owner = await person('streamer');
  await app.services.repos.create(owner, { name: 'big', autoInit: true });
  // Incompressible and larger than the socket buffers: the archive is still being written when
  // the client goes.
  await commitFiles(app.git.paths.resolve({ owner: 'streamer', name: 'big' }).path, {
    branch: 'main',
    files: { 'noise.bin': randomBytes(8 * 1024 * 1024) },
  });
  lines.length = 0;
  const path = '/api/v1/repos/streamer/big/archive/main.zip';
  await new Promise<void>((resolve, reject) => {
    const request = http.get(`${url}${path}`, (response) => {
      expect(response.statusCode).toBe(200);
      response.once('data', () => {
        request.destroy();
        resolve();
      });
    });
    request.on('error', reject);
  });
  const entries = () =>
    lines
      .join('')
      .split('\n')
      .filter((line) => line.includes(path))
      .map((line) => JSON.parse(line));
  await expect.poll(() => entries().length).toBe(1);
  expect(entries()[0]).toMatchObject({
    level: 30,
    msg: 'request aborted',
    req: { method: 'GET', url: path },
    res: { statusCode: 200 },
  });
});

it('logs a git request whose body the client cuts off as the client leaving, not as a failure', async () => {
  const owner = await person('leaver');
  await app.services.repos.create(owner, { name: 'open', autoInit: true });
  lines.length = 0;
  const path = '/leaver/open.git/git-upload-pack';
  await new Promise<void>((resolve) => {
    const socket = net.connect(Number(new URL(url).port), '127.0.0.1', () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: kiln\r\n` +
          'Content-Type: application/x-git-upload-pack-request\r\n' +
          'Transfer-Encoding: chunked\r\n\r\n100\r\n0032want ',
        () => setTimeout(() => socket.destroy(), 100),
      );
    });
    socket.on('close', () => resolve());
    socket.on('error', () => {});
  });
  const entries = () =>
    lines
      .join('')
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as { level: number; msg: string });
  await expect
    .poll(() => entries().map((entry) => entry.msg))
    .toContain('client went away during the request');
  expect(entries().filter((entry) => entry.level >= 50)).toEqual([]);
});

it('logs after-push work that fails, and the push stands with every other listener run', async () => {
  const owner = await person('pusher');
  const { token } = await app.services.tokens.create(owner, 'push');
  await app.services.repos.create(owner, { name: 'listened' });
  const remote = repoUrl(url, 'pusher', 'listened', { token, as: 'username' });
  const heard: string[] = [];
  const unsubscribe = [
    app.events.subscribe('push', async () => {
      throw new Error('listener exploded');
    }),
    app.events.subscribe('push', async ({ changes }) => {
      heard.push(...changes.map((change) => change.ref));
    }),
  ];
  const git = await GitClient.create();
  try {
    const work = await git.init();
    const tip = await git.commit(work, { 'a.txt': 'a\n' });
    lines.length = 0;
    await git.ok(['push', '-q', remote, 'main'], { cwd: work });
    const failures = () =>
      lines
        .join('')
        .split('\n')
        .filter((line) => line.includes('after-push work failed'))
        .map((line) => JSON.parse(line) as { level: number; err: { message: string } });
    await expect.poll(() => failures().length).toBe(1);
    expect(failures()[0]).toMatchObject({ level: 50, err: { message: 'listener exploded' } });
    expect(heard).toEqual(['refs/heads/main']);
    expect(await git.ok(['ls-remote', remote])).toContain(`${tip}\trefs/heads/main`);
  } finally {
    for (const remove of unsubscribe) remove();
    await git.dispose();
  }
});
