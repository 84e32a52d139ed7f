/**
 * Property-based hostile input over the runner protocol at /api/actions: protobuf garbage,
 * valid messages truncated or with bytes flipped, JSON of the wrong shape, runner headers of
 * any length and content, odd methods and content types. Never a 5xx; the process stays up and
 * bounded.
 */
import { gzipSync } from 'node:zlib';
import { create, toBinary } from '@bufbuild/protobuf';
import fc from 'fast-check';
import { describe, it } from 'vitest';
import {
  DeclareRequestSchema,
  RegisterRequestSchema,
} from '../../src/gen/runner/v1/messages_pb.js';
import {
  expectHealthy,
  expectNoServerError,
  type HostileWorld,
  headers,
  jsonBody,
  method,
  runs,
  segment,
  send,
  useHostileWorld,
} from './support.ts';

let world: HostileWorld;
useHostileWorld((started) => {
  world = started;
});

const valid = [
  toBinary(
    RegisterRequestSchema,
    create(RegisterRequestSchema, {
      name: 'r',
      token: 'x'.repeat(40),
      labels: ['a'],
      version: 'v1',
    }),
  ),
  toBinary(
    DeclareRequestSchema,
    create(DeclareRequestSchema, { version: 'v1', labels: ['a', 'b'] }),
  ),
].map((bytes) => Buffer.from(bytes));

/** A valid message cut short, with some bytes overwritten, or random bytes outright. */
const protoBody: fc.Arbitrary<Buffer> = fc.oneof(
  fc
    .tuple(
      fc.constantFrom(...valid),
      fc.nat(),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 6 }),
    )
    .map(([message, cut, flips]) => {
      const copy = Buffer.from(message.subarray(0, 1 + (cut % message.length)));
      for (const [at, byte] of flips) copy[at % copy.length] = byte;
      return copy;
    }),
  fc.uint8Array({ maxLength: 500 }).map((bytes) => Buffer.from(bytes)),
  // A length-delimited field claiming far more bytes than follow.
  fc.constant(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x41])),
  // A varint that never ends.
  fc.constant(Buffer.alloc(64, 0xff)),
  // A field nested in a field nested in a field, two thousand deep.
  fc.constant(Buffer.from(Array.from({ length: 2000 }, () => [0x0a, 0x00]).flat())),
);

describe('hostile input on the runner protocol', () => {
  it('never answers 5xx, stays up and bounded', async () => {
    const procedures = world.routes
      .filter((route) => route.url.startsWith('/api/actions/') && route.method === 'POST')
      .map((route) => route.url);
    const request = fc.record({
      method: fc.oneof(
        { weight: 5, arbitrary: fc.constant('POST') },
        { weight: 1, arbitrary: method },
      ),
      path: fc.oneof(
        { weight: 5, arbitrary: fc.constantFrom(...procedures) },
        { weight: 1, arbitrary: segment.map((s) => `/api/actions/runner.v1.RunnerService/${s}`) },
      ),
      contentType: fc.constantFrom(
        'application/proto',
        'application/json',
        'application/connect+proto',
        'application/grpc',
        'text/plain',
        '',
      ),
      encoding: fc.constantFrom(undefined, 'gzip', 'br', 'identity', 'x'),
      runner: fc.option(
        fc.tuple(
          fc.oneof(fc.uuid(), segment),
          fc.oneof(
            fc.string({ maxLength: 80, unit: fc.constantFrom(...'0123456789abcdef') }),
            segment,
          ),
        ),
        { nil: undefined },
      ),
      headers,
      body: fc.oneof(
        protoBody,
        jsonBody(['name', 'token', 'labels', 'version', 'ephemeral', 'capabilities', 'data']),
      ),
    });
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const status = await send(world.kiln, {
          method: r.method,
          path: r.path,
          headers: [
            ['connect-protocol-version', '1'],
            ...(r.contentType ? [['content-type', r.contentType] as const] : []),
            ...(r.encoding ? [['content-encoding', r.encoding] as const] : []),
            ...(r.runner
              ? [['x-runner-uuid', r.runner[0]] as const, ['x-runner-token', r.runner[1]] as const]
              : []),
            ...r.headers,
          ],
          body: r.body,
        });
        expectNoServerError(status, `${r.method} ${r.path}`, [501]);
      }),
      runs(1000, [
        ...(['gzip', 'br'] as const).flatMap((encoding) =>
          [Buffer.from([156]), gzipSync(Buffer.from('{"data":"x"}')), Buffer.from('garbage')].map(
            (body) => ({
              method: 'POST',
              path: '/api/actions/ping.v1.PingService/Ping',
              contentType: 'application/proto' as const,
              encoding,
              runner: undefined,
              headers: [],
              body,
            }),
          ),
        ),
      ]),
    );
    await expectHealthy(world);
  }, 120_000);
});
