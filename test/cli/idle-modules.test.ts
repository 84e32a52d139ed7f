/**
 * What an idle `kiln serve` holds: the libraries that only some requests need (federation, SSH,
 * the runner protocol, workflows, metrics, the pages' icons, Node's fetch) are not loaded until
 * such a request comes, and then they are. Each costs megabytes of resident memory from start otherwise
 * (docs/performance.md, “Starting Kiln”). Started through the launcher, as users start it, with a
 * preload that records every module the process loads.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKeyPair, removeKeyPairs, runSsh } from '../ssh/ssh-support.ts';
import { runCli, serveThroughLauncher, useCliInstance } from '../support/cli.ts';
import { postgresAdminUrl } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';

const RECORDER = fileURLToPath(new URL('../support/record-loads.js', import.meta.url));

/** Packages an idle server with the default settings must not have loaded (the PostgreSQL
 * driver only where the suite runs on SQLite). */
const LAZY = [
  '@fedify/fedify',
  'ssh2',
  '@connectrpc/connect',
  '@bufbuild/protobuf',
  'prom-client',
  '@primer/octicons',
  'markdown-it',
  '@fastify/swagger',
  'yaml',
  '@actions/expressions',
  ...(postgresAdminUrl ? [] : ['pg']),
];

let env: Record<string, string>;
let loads: string;
useCliInstance('kiln-idle-', (instance) => {
  loads = join(instance.dir, 'loads.txt');
  env = {
    ...instance.env,
    PATH: process.env.PATH ?? '',
    SERVICE_HTTP_PORT: '0',
    // Federation and SSH are on by default (a loopback base URL is derived when none is set):
    // their libraries wait all the same for the first peer.
    SERVICE_SSH_PORT: '0',
    KILN_TEST_LOADS: loads,
    NODE_OPTIONS: `--import ${RECORDER}`,
  };
});

let child: ChildProcess;
let url: string;
let stdout: () => string;
beforeAll(async () => {
  // Every start after the first finds its database up to date: that is the start measured.
  const { KILN_TEST_LOADS: _, NODE_OPTIONS: __, ...plain } = env;
  expect((await runCli(['migrate'], plain)).code).toBe(0);
  ({ child, url, stdout } = await serveThroughLauncher(process.execPath, env));
});
afterAll(() => {
  child.kill('SIGTERM');
  removeKeyPairs();
});

/** The npm packages the server has loaded so far. */
function loadedPackages(): Set<string> {
  const urls = readFileSync(loads, 'utf8').split('\n');
  const names = urls.flatMap((line) => {
    const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(line);
    return match?.[1] ? [match[1]] : [];
  });
  return new Set(names);
}

/** The built-in modules the server has loaded so far, from Node's own list. */
async function loadedBuiltins(): Promise<string[]> {
  const file = `${loads}.builtins`;
  rmSync(file, { force: true });
  child.kill('SIGUSR2');
  await eventually(async () => existsSync(file));
  return readFileSync(file, 'utf8').split('\n');
}

describe('an idle kiln serve', () => {
  it('compiles no schema before a request comes', () => {
    // Fastify's own error serializer brings a part of fast-json-stringify; Ajv waits.
    const loaded = loadedPackages();
    expect(['ajv', '@fastify/ajv-compiler'].filter((name) => loaded.has(name))).toEqual([]);
  });

  it('has not loaded the other commands’ code (dump, restore, doctor)', () => {
    const urls = readFileSync(loads, 'utf8').split('\n');
    expect(urls.filter((line) => line.includes('/src/domain/backup/'))).toEqual([]);
  });

  it('has not loaded the migrations of a database already up to date', () => {
    const urls = readFileSync(loads, 'utf8').split('\n');
    expect(urls.filter((line) => /\/src\/db\/migrations\/(\d{4}-|index)/.test(line))).toEqual([]);
  });

  it('serves health and the API without the libraries other requests need', async () => {
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/api/v1/version`)).status).toBe(200);
    const loaded = loadedPackages();
    expect(loaded.has('fastify')).toBe(true);
    expect(LAZY.filter((name) => loaded.has(name))).toEqual([]);
    expect((await loadedBuiltins()).filter((name) => name.includes('undici'))).toEqual([]);
  });

  it('loads each library with the first request that needs it', async () => {
    const ping = await fetch(`${url}/api/actions/ping.v1.PingService/Ping`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ data: 'idle' }),
    });
    expect(await ping.json()).toEqual({ data: 'Hello, idle!' });
    const page = await fetch(`${url}/user/login`);
    expect(await page.text()).toContain('<svg');
    const metrics = await fetch(`${url}/metrics`);
    expect(await metrics.text()).toContain('process_cpu_user_seconds_total');
    const loaded = loadedPackages();
    expect(
      ['@connectrpc/connect', '@primer/octicons', 'prom-client'].filter((n) => !loaded.has(n)),
    ).toEqual([]);
  });

  it('loads ssh2 with the first SSH connection, which it serves', async () => {
    const line = /^ssh listening on \S+:(\d+)$/m;
    expect(await eventually(async () => line.test(stdout()))).toBe(true);
    expect(loadedPackages().has('ssh2')).toBe(false);
    // A key the server does not know: the handshake (host keys, key exchange) must have worked
    // for OpenSSH to get as far as being refused.
    const refused = await runSsh(makeKeyPair(), Number(line.exec(stdout())?.[1]));
    expect(refused.code).toBe(255);
    expect(refused.stderr).toContain('Permission denied (publickey)');
    expect(loadedPackages().has('ssh2')).toBe(true);
  });

  it('loads Fedify with the first federation request that signs or checks', async () => {
    const nodeinfo = await fetch(`${url}/.well-known/nodeinfo`);
    expect(nodeinfo.status).toBe(200);
    expect(loadedPackages().has('@fedify/fedify')).toBe(false);
    const actor = await fetch(`${url}/federation/actor`, {
      headers: { accept: 'application/activity+json' },
    });
    expect(actor.status).toBe(200);
    expect(JSON.stringify(await actor.json())).toContain('BEGIN PUBLIC KEY');
    expect(loadedPackages().has('@fedify/fedify')).toBe(true);
  });
});
