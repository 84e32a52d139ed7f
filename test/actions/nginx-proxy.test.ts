/**
 * The nginx snippet of docs/runners.md, taken from the page as it is written, in front of a real
 * Kiln: a runner registers and declares through it in binary protobuf, a chunked body without
 * Content-Length arrives whole, and Kiln's Connect errors reach the runner unchanged.
 *
 * Needs the nginx binary (`.ci/run` installs it); elsewhere the suite is skipped, except under CI
 * where a missing nginx fails it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Code, ConnectError } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR } from '../../src/domain/runners/runner.policy.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { runnerClients, runnerHeaders } from './fixtures.ts';

const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((path) => existsSync(path));
if (NGINX === undefined && process.env.CI) throw new Error('nginx is missing; .ci/run installs it');

/** The ```nginx block of docs/runners.md, pointed at `upstream`. */
function documentedSnippet(upstream: string): string {
  const page = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'runners.md'), 'utf8');
  const block = /```nginx\n([\s\S]*?)```/.exec(page)?.[1];
  if (block === undefined) throw new Error('docs/runners.md has no nginx block');
  const pointed = block.replace(
    /proxy_pass http:\/\/127\.0\.0\.1:3000;/,
    `proxy_pass ${upstream};`,
  );
  if (pointed === block) throw new Error('the nginx block no longer proxies to 127.0.0.1:3000');
  return pointed;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** nginx in the foreground, one process, everything it writes inside `dir`. */
async function startNginx(dir: string, port: number, snippet: string): Promise<ChildProcess> {
  for (const temp of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, temp));
  const config = join(dir, 'nginx.conf');
  writeFileSync(
    config,
    `daemon off;
master_process off;
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events {}
http {
  access_log off;
  client_body_temp_path ${join(dir, 'body')};
  proxy_temp_path ${join(dir, 'proxy')};
  fastcgi_temp_path ${join(dir, 'fastcgi')};
  uwsgi_temp_path ${join(dir, 'uwsgi')};
  scgi_temp_path ${join(dir, 'scgi')};
  server {
    listen 127.0.0.1:${port};
${snippet}
  }
}
`,
  );
  const child = spawn(NGINX as string, ['-p', dir, '-e', join(dir, 'error.log'), '-c', config], {
    stdio: 'ignore',
  });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const probe = request({ host: '127.0.0.1', port, path: '/', method: 'GET' }, (response) => {
        response.resume();
        resolve(true);
      });
      probe.on('error', () => resolve(false));
      probe.end();
    });
    if (up) return child;
    if (child.exitCode !== null || Date.now() > deadline) {
      const log = existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log')) : '';
      throw new Error(`nginx did not start: ${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One raw POST with a chunked body and no Content-Length, as older runners send it. */
function chunkedPost(port: number, path: string, body: Buffer): Promise<[number, string]> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'connect-protocol-version': '1' },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        response.on('end', () => resolve([response.statusCode ?? 0, text]));
      },
    );
    outgoing.on('error', reject);
    // Two writes before end: Node sends them as chunks, with Transfer-Encoding: chunked.
    outgoing.write(body.subarray(0, 5));
    outgoing.end(body.subarray(5));
  });
}

describe.skipIf(NGINX === undefined)('runners behind the documented nginx snippet', () => {
  let kiln: TestServer;
  let nginx: ChildProcess | undefined;
  let dir: string;
  let port: number;
  let clients: ReturnType<typeof runnerClients>;

  beforeAll(async () => {
    kiln = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), 'kiln-nginx-'));
    port = await freePort();
    nginx = await startNginx(dir, port, documentedSnippet(kiln.url));
    clients = runnerClients({ url: `http://127.0.0.1:${port}` });
  });
  afterAll(async () => {
    nginx?.kill('SIGTERM');
    await kiln?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('registers and declares a runner through it', async () => {
    const { token } = await kiln.app.services.runnerAdmin.createToken(OPERATOR, {
      kind: 'instance',
    });
    const { runner } = await clients.runner.register({
      name: 'behind-nginx',
      token,
      version: 'v0.2.11',
      labels: ['ubuntu-latest'],
    });
    expect(runner?.name).toBe('behind-nginx');
    const declared = await clients.runner.declare(
      { version: 'v0.2.12', labels: ['ubuntu-latest', 'arm64'] },
      { headers: runnerHeaders({ uuid: runner?.uuid ?? '', token: runner?.token ?? '' }) },
    );
    expect(declared.runner?.labels).toEqual(['ubuntu-latest', 'arm64']);
    expect(declared.runner?.version).toBe('v0.2.12');
  });

  it('passes a chunked body without Content-Length through whole', async () => {
    const [status, text] = await chunkedPost(
      port,
      '/api/actions/ping.v1.PingService/Ping',
      Buffer.from(JSON.stringify({ data: 'chunked through nginx' })),
    );
    expect(status).toBe(200);
    expect(JSON.parse(text)).toEqual({ data: 'Hello, chunked through nginx!' });
  });

  it("passes Kiln's Connect errors through unchanged", async () => {
    const error = await clients.runner
      .register({ name: 'x', token: 'not-a-token', version: 'v0.2.11', labels: [] })
      .then(
        () => undefined,
        (reason: unknown) => ConnectError.from(reason),
      );
    expect(error?.code).toBe(Code.Unauthenticated);
    expect(error?.rawMessage).toBe('runner registration token not found');
    const missing = await clients.runner.declare({ version: 'v1', labels: [] }).then(
      () => undefined,
      (reason: unknown) => ConnectError.from(reason),
    );
    expect(missing?.code).toBe(Code.Unauthenticated);
    expect(missing?.rawMessage).toBe('unregistered runner');
  });
});
