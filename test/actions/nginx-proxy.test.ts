/**
 * The nginx snippet of docs/runners.md, taken from the page as it is written, in front of a real
 * Kiln: a runner registers and declares through it in binary protobuf, a chunked body without
 * Content-Length arrives whole, and Kiln's Connect errors reach the runner unchanged.
 *
 * Needs the nginx binary (`.ci/run` installs it); elsewhere the suite is skipped, except under CI
 * where a missing nginx fails it.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Code, ConnectError } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR } from '../../src/domain/runners/runner.policy.ts';
import { freePort } from '../support/free-port.ts';
import { NGINX, startNginx } from '../support/nginx.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { runnerClients, runnerHeaders } from './fixtures.ts';

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
    nginx = await startNginx(dir, port, { server: documentedSnippet(kiln.url) });
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
