/**
 * The runner protocol edge on a real port, driven by a generated Connect client (binary codec over
 * HTTP/1.1, as the Go runners speak it) and by raw HTTP for what no proper client sends. The
 * registry behind it is a small in-memory stand-in written here.
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect as netConnect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { Code, ConnectError, createClient, type Transport } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import formbody from '@fastify/formbody';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Invalid, NotFound, Unauthenticated } from '../../domain/errors.ts';
import { PingService } from '../../gen/ping/v1/services_pb.js';
import { RunnerStatus } from '../../gen/runner/v1/messages_pb.js';
import { RunnerService } from '../../gen/runner/v1/services_pb.js';
import { registerActionsRoutes } from './actions.routes.ts';
import {
  REGISTRATION_TOKEN_NOT_FOUND_MESSAGE,
  UNREGISTERED_RUNNER_MESSAGE,
} from './connect-errors.ts';
import type {
  DeclareRunnerInput,
  RegisteredRunner,
  RegisterRunnerInput,
  RunnerRecord,
  RunnerRegistry,
} from './runner-registry.ts';

const REGISTRATION_TOKEN = 'registration-token-0123456789';

/** Runners in a Map; tokens compared in plain text, which is fine for a test double. */
class MemoryRunnerRegistry implements RunnerRegistry {
  readonly runners = new Map<string, { record: RunnerRecord; token: string }>();
  /** Set to make the next call fail with this error. */
  failNextWith: unknown;

  async register(input: RegisterRunnerInput): Promise<RegisteredRunner> {
    this.throwIfAsked();
    if (input.token !== REGISTRATION_TOKEN) throw new Unauthenticated('no such registration token');
    if (input.name === '') throw new Invalid('runner name must not be empty');
    const record: RunnerRecord = {
      id: randomUUID(),
      uuid: randomUUID(),
      name: input.name,
      version: input.version,
      labels: [...input.labels],
      ephemeral: input.ephemeral,
      status: 'idle',
    };
    const token = randomUUID().replaceAll('-', '');
    this.runners.set(record.uuid, { record, token });
    return { runner: record, token };
  }

  async declare(input: DeclareRunnerInput): Promise<RunnerRecord> {
    this.throwIfAsked();
    const stored = await this.check(input.uuid, input.token);
    const record = { ...stored, version: input.version, labels: [...input.labels] };
    this.runners.set(record.uuid, { record, token: input.token });
    return record;
  }

  async authenticate(uuid: string, token: string): Promise<RunnerRecord> {
    return this.check(uuid, token);
  }

  private async check(uuid: string, token: string): Promise<RunnerRecord> {
    const stored = this.runners.get(uuid);
    if (stored === undefined) throw new NotFound('no such runner');
    if (stored.token !== token) throw new Unauthenticated('wrong runner token');
    return stored.record;
  }

  private throwIfAsked(): void {
    const error = this.failNextWith;
    this.failNextWith = undefined;
    if (error !== undefined) throw error;
  }
}

let app: FastifyInstance;
let baseUrl: string;
const logLines: string[] = [];
let registry: MemoryRunnerRegistry;
let transport: Transport;

beforeAll(async () => {
  registry = new MemoryRunnerRegistry();
  app = Fastify({
    logger: { level: 'error', stream: { write: (line: string) => logLines.push(line) } },
  });
  // What Kiln's app does globally: its own JSON parser and form bodies. Neither may reach Connect.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, { parsedByApp: JSON.parse(String(body)) });
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  await app.register(formbody);
  // ...and its REST-shaped 404 and error answers, which must not reach /api/actions either.
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ message: 'Not Found' }));
  app.setErrorHandler((_error, _request, reply) => reply.code(500).send({ message: 'REST' }));
  app.post('/api/v1/echo', async (request) => request.body);
  registerActionsRoutes(app, { runners: registry, maxRequestBytes: 64 * 1024 });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  baseUrl = `http://127.0.0.1:${address.port}`;
  transport = createConnectTransport({
    baseUrl: `${baseUrl}/api/actions`,
    httpVersion: '1.1',
    useBinaryFormat: true,
  });
});

afterAll(async () => {
  await app.close();
});

function runnerClient(via: Transport = transport) {
  return createClient(RunnerService, via);
}

async function registerRunner(labels: string[] = ['ubuntu-latest']) {
  const { runner } = await runnerClient().register({
    name: 'runner-1',
    token: REGISTRATION_TOKEN,
    version: 'v0.2.11',
    labels,
  });
  if (runner === undefined) throw new Error('no runner in RegisterResponse');
  return runner;
}

function runnerHeaders(uuid: string, token: string) {
  return { 'x-runner-uuid': uuid, 'x-runner-token': token };
}

/** Expects the promise to fail with this Connect code and message. */
async function expectConnectError(promise: Promise<unknown>, code: Code, message?: string) {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ConnectError);
  const connectError = error as ConnectError;
  expect(Code[connectError.code]).toBe(Code[code]);
  if (message !== undefined) expect(connectError.rawMessage).toBe(message);
}

/** A raw POST under /api/actions. */
function post(
  path: string,
  body: string | Uint8Array<ArrayBuffer> | undefined,
  headers: Record<string, string> = {},
) {
  return fetch(`${baseUrl}/api/actions/${path}`, { method: 'POST', body, headers });
}

async function expectStillServing() {
  const reply = await createClient(PingService, transport).ping({ data: 'again' });
  expect(reply.data).toBe('Hello, again!');
}

describe('ping.v1.PingService/Ping', () => {
  it('greets like Gitea, in the binary codec', async () => {
    const reply = await createClient(PingService, transport).ping({ data: 'runner-1' });
    expect(reply.data).toBe('Hello, runner-1!');
  });

  it('answers the JSON codec too', async () => {
    const jsonTransport = createConnectTransport({
      baseUrl: `${baseUrl}/api/actions`,
      httpVersion: '1.1',
    });
    const reply = await createClient(PingService, jsonTransport).ping({ data: 'json' });
    expect(reply.data).toBe('Hello, json!');
  });

  it('answers with Content-Type application/proto', async () => {
    const response = await post('ping.v1.PingService/Ping', new Uint8Array(), {
      'content-type': 'application/proto',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/proto');
    // An empty body is an empty PingRequest: data "" → "Hello, !" (field 1, 8 bytes).
    expect([...new Uint8Array(await response.arrayBuffer())]).toEqual([
      0x0a,
      0x08,
      ...new TextEncoder().encode('Hello, !'),
    ]);
  });
});

describe('runner.v1.RunnerService/Register', () => {
  it('registers with a good token and returns the secret once', async () => {
    const runner = await registerRunner(['ubuntu-latest', 'self-hosted']);
    expect(runner.id).toBeGreaterThan(0n);
    expect(runner.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(runner.token).not.toBe('');
    expect(runner.name).toBe('runner-1');
    expect(runner.version).toBe('v0.2.11');
    expect(runner.labels).toEqual(['ubuntu-latest', 'self-hosted']);
    expect(runner.status).toBe(RunnerStatus.IDLE);
    expect(registry.runners.get(runner.uuid)?.token).toBe(runner.token);
  });

  it('takes labels from the deprecated agent_labels when labels is empty', async () => {
    const { runner } = await runnerClient().register({
      name: 'old-runner',
      token: REGISTRATION_TOKEN,
      agentLabels: ['linux'],
      ephemeral: true,
    });
    expect(runner?.labels).toEqual(['linux']);
    expect(runner?.ephemeral).toBe(true);
  });

  it('refuses a wrong registration token with unauthenticated (401)', async () => {
    await expectConnectError(
      runnerClient().register({ name: 'r', token: 'wrong' }),
      Code.Unauthenticated,
      REGISTRATION_TOKEN_NOT_FOUND_MESSAGE,
    );
    const response = await post(
      'runner.v1.RunnerService/Register',
      JSON.stringify({ name: 'r', token: 'wrong' }),
      { 'content-type': 'application/json' },
    );
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      code: 'unauthenticated',
      message: REGISTRATION_TOKEN_NOT_FOUND_MESSAGE,
    });
  });

  it('passes the message of an Invalid input on as invalid_argument', async () => {
    await expectConnectError(
      runnerClient().register({ name: '', token: REGISTRATION_TOKEN }),
      Code.InvalidArgument,
      'runner name must not be empty',
    );
  });

  it('hides unexpected errors behind internal', async () => {
    registry.failNextWith = new Error('SELECT * FROM secret_table failed');
    const response = await post(
      'runner.v1.RunnerService/Register',
      JSON.stringify({ name: 'r', token: REGISTRATION_TOKEN }),
      { 'content-type': 'application/json' },
    );
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ code: 'internal', message: 'internal error' });
    expect(logLines.join('')).toContain('SELECT * FROM secret_table failed');
  });
});

describe('runner.v1.RunnerService/Declare', () => {
  it('records version and labels for a runner with good headers', async () => {
    const registered = await registerRunner();
    const { runner } = await runnerClient().declare(
      { version: 'v0.2.12', labels: ['ubuntu-22.04'], capabilities: ['cancelling'] },
      { headers: runnerHeaders(registered.uuid, registered.token) },
    );
    expect(runner?.uuid).toBe(registered.uuid);
    expect(runner?.id).toBe(registered.id);
    expect(runner?.version).toBe('v0.2.12');
    expect(runner?.labels).toEqual(['ubuntu-22.04']);
    expect(runner?.token).toBe('');
  });

  it('answers missing headers with 401 unregistered runner', async () => {
    await expectConnectError(
      runnerClient().declare({ version: 'v1' }),
      Code.Unauthenticated,
      UNREGISTERED_RUNNER_MESSAGE,
    );
    const response = await post('runner.v1.RunnerService/Declare', new Uint8Array(), {
      'content-type': 'application/proto',
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      code: 'unauthenticated',
      message: UNREGISTERED_RUNNER_MESSAGE,
    });
  });

  it('answers a wrong token and an unknown uuid alike', async () => {
    const registered = await registerRunner();
    await expectConnectError(
      runnerClient().declare({}, { headers: runnerHeaders(registered.uuid, 'not-the-token') }),
      Code.Unauthenticated,
      UNREGISTERED_RUNNER_MESSAGE,
    );
    await expectConnectError(
      runnerClient().declare({}, { headers: runnerHeaders(randomUUID(), registered.token) }),
      Code.Unauthenticated,
      UNREGISTERED_RUNNER_MESSAGE,
    );
  });
});

describe('phase-2 methods', () => {
  it('answers FetchTask, UpdateTask and UpdateLog with unimplemented', async () => {
    const registered = await registerRunner();
    const options = { headers: runnerHeaders(registered.uuid, registered.token) };
    await expectConnectError(runnerClient().fetchTask({}, options), Code.Unimplemented);
    await expectConnectError(runnerClient().updateTask({}, options), Code.Unimplemented);
    await expectConnectError(runnerClient().updateLog({}, options), Code.Unimplemented);
  });

  it('still tells a runner that is gone that it is unregistered', async () => {
    await expectConnectError(
      runnerClient().fetchTask({}, { headers: runnerHeaders(randomUUID(), 'x') }),
      Code.Unauthenticated,
      UNREGISTERED_RUNNER_MESSAGE,
    );
  });
});

describe('requests no proper client sends', () => {
  it('answers a wrong content type with 415 and a Connect error', async () => {
    const response = await post('ping.v1.PingService/Ping', 'data=x', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(response.status).toBe(415);
    expect(response.headers.get('accept-post')).toContain('application/proto');
    expect(await response.json()).toMatchObject({ code: 'invalid_argument' });
    await expectStillServing();
  });

  it('answers a missing content type with 415', async () => {
    const response = await post('ping.v1.PingService/Ping', new Uint8Array([0x0a, 0x01, 0x41]));
    expect(response.status).toBe(415);
    expect(await response.json()).toMatchObject({ code: 'invalid_argument' });
  });

  it('answers an empty JSON body with invalid_argument', async () => {
    const response = await post('ping.v1.PingService/Ping', '', {
      'content-type': 'application/json',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'invalid_argument' });
    await expectStillServing();
  });

  it('answers garbage bytes with invalid_argument', async () => {
    const garbage = new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x0f, 0x00, 0x13, 0x37]);
    for (const contentType of ['application/proto', 'application/json']) {
      const response = await post('runner.v1.RunnerService/Register', garbage, {
        'content-type': contentType,
      });
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.json()).toMatchObject({ code: 'invalid_argument' });
    }
    await expectStillServing();
  });

  it('refuses an UpdateLog whose task_id is not a varint instead of misreading it', async () => {
    // Field 1 (task_id) sent length-delimited: the generic decoder read the length as the id.
    const runner = await registerRunner();
    const response = await post('runner.v1.RunnerService/UpdateLog', Uint8Array.of(0x0a, 1, 7), {
      'content-type': 'application/proto',
      ...runnerHeaders(runner.uuid, runner.token),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      code: 'invalid_argument',
      message: 'cannot decode runner.v1.UpdateLogRequest: field 1 has wire type 2, not 0',
    });
    await expectStillServing();
  });

  it('reads a chunked body that has no Content-Length', async () => {
    const { status, headers, body } = await new Promise<{
      status: number;
      headers: Record<string, unknown>;
      body: Buffer;
    }>((resolve, reject) => {
      const request = httpRequest(
        `${baseUrl}/api/actions/ping.v1.PingService/Ping`,
        { method: 'POST', headers: { 'content-type': 'application/proto' } },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: Buffer.concat(chunks),
            }),
          );
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      // PingRequest{data: "chunked"} written in two pieces; Node sends Transfer-Encoding: chunked.
      request.write(Buffer.from([0x0a, 0x07, ...Buffer.from('chu')]));
      setTimeout(() => request.end(Buffer.from('nked')), 20);
    });
    expect(status).toBe(200);
    expect(headers['content-type']).toBe('application/proto');
    expect(body.subarray(2).toString()).toBe('Hello, chunked!');
  });

  it('answers unknown procedures with a Connect 404', async () => {
    for (const path of ['runner.v1.RunnerService/Nope', 'nope.v1.NopeService/Nope', '']) {
      const response = await post(path, new Uint8Array(), { 'content-type': 'application/proto' });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ code: 'unimplemented' });
    }
    const bare = await fetch(`${baseUrl}/api/actions`, { method: 'POST' });
    expect(bare.status).toBe(404);
    expect(await bare.json()).toMatchObject({ code: 'unimplemented' });
    const get = await fetch(`${baseUrl}/api/actions/nope`);
    expect(get.status).toBe(404);
    expect(await get.json()).toMatchObject({ code: 'unimplemented' });
    await expectStillServing();
  });

  it('answers GET on a procedure with 405 and Allow: POST', async () => {
    const response = await fetch(`${baseUrl}/api/actions/ping.v1.PingService/Ping`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(await response.json()).toMatchObject({ code: 'unimplemented' });
  });

  it('accepts a large Connect-Timeout-Ms and unknown JSON fields', async () => {
    const response = await post('ping.v1.PingService/Ping', '{"data":"t","futureField":1}', {
      'content-type': 'application/json',
      'connect-protocol-version': '1',
      'connect-timeout-ms': '10800000',
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: 'Hello, t!' });
  });

  it('leaves the app body parsers working outside /api/actions', async () => {
    const json = await fetch(`${baseUrl}/api/v1/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(await json.json()).toEqual({ parsedByApp: { a: 1 } });
    const form = await fetch(`${baseUrl}/api/v1/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'b=2',
    });
    expect(await form.json()).toEqual({ b: '2' });
  });

  it('refuses a body over the size limit with resource_exhausted', async () => {
    const big = new Uint8Array(100 * 1024);
    for (const contentType of ['application/proto', 'application/json']) {
      const response = await post('ping.v1.PingService/Ping', big, { 'content-type': contentType });
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.json()).toMatchObject({ code: 'resource_exhausted' });
    }
    await expectStillServing();
  });

  it('accepts a gzip-compressed request body', async () => {
    // PingRequest{data: "gz"}
    const body = gzipSync(Buffer.from([0x0a, 0x02, ...Buffer.from('gz')]));
    const response = await post('ping.v1.PingService/Ping', body, {
      'content-type': 'application/proto',
      'content-encoding': 'gzip',
    });
    expect(response.status).toBe(200);
    expect(
      Buffer.from(await response.arrayBuffer())
        .subarray(2)
        .toString(),
    ).toBe('Hello, gz!');
  });

  it('answers an HTTP/1.0 request without Host with a Connect error, not an empty 200', async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = netConnect(Number(new URL(baseUrl).port), '127.0.0.1', () => {
        socket.write(
          'POST /api/actions/ping.v1.PingService/Ping HTTP/1.0\r\n' +
            'Content-Type: application/proto\r\nContent-Length: 0\r\n\r\n',
        );
      });
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk;
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(raw).toContain('"code":"invalid_argument"');
    await expectStillServing();
  });
});

describe('mounting', () => {
  it('gets raw bodies even when the app adds its parsers after mounting', async () => {
    const late = Fastify({ logger: false });
    registerActionsRoutes(late, { runners: new MemoryRunnerRegistry() });
    late.removeContentTypeParser('application/json');
    late.addContentTypeParser('application/json', (_request, _payload, done) => {
      done(null, { parsedByApp: true });
    });
    await late.register(formbody);
    await late.listen({ host: '127.0.0.1', port: 0 });
    try {
      const address = late.server.address();
      if (address === null || typeof address === 'string') throw new Error('no port');
      const lateUrl = `http://127.0.0.1:${address.port}/api/actions`;
      for (const useBinaryFormat of [true, false]) {
        const client = createClient(
          PingService,
          createConnectTransport({ baseUrl: lateUrl, httpVersion: '1.1', useBinaryFormat }),
        );
        expect((await client.ping({ data: 'late' })).data).toBe('Hello, late!');
      }
    } finally {
      await late.close();
    }
  });
});
