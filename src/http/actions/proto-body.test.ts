import { create, type Message, toBinary } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError } from '@connectrpc/connect';
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { UpdateLogRequestSchema } from '../../gen/runner/v1/messages_pb.js';
import { RunnerService } from '../../gen/runner/v1/services_pb.js';
import { createProtoBodyParser } from './proto-body.ts';

/** The parts of a request the parser reads: its headers and the route it matched. */
function requestFor(method: string): FastifyRequest {
  const fake = {
    headers: {},
    routeOptions: { url: `/api/actions/runner.v1.RunnerService/${method}` },
  };
  return fake as unknown as FastifyRequest;
}

async function* chunks(...parts: Uint8Array[]): AsyncIterable<Uint8Array> {
  yield* parts;
}

describe('the binary body parser', () => {
  it('decodes an UpdateLog once and hands Connect nothing left to decode', async () => {
    const decoded = new WeakMap<FastifyRequest, Message>();
    const parse = createProtoBodyParser([RunnerService], 1 << 20, decoded);
    const sent = create(UpdateLogRequestSchema, {
      taskId: 7n,
      index: 100n,
      rows: [{ time: timestampFromDate(new Date(0)), content: 'hello' }],
      noMore: true,
    });
    const bytes = toBinary(UpdateLogRequestSchema, sent);
    const request = requestFor('UpdateLog');
    const body = await parse(request, chunks(bytes.subarray(0, 5), bytes.subarray(5)));
    expect(body?.byteLength).toBe(0);
    expect(decoded.get(request)).toEqual(sent);
  });

  it('answers bytes that do not decode with invalid_argument and keeps nothing', async () => {
    const decoded = new WeakMap<FastifyRequest, Message>();
    const parse = createProtoBodyParser([RunnerService], 1 << 20, decoded);
    const request = requestFor('UpdateLog');
    const failure = await parse(request, chunks(Uint8Array.of(0x0a, 0xff))).catch((e) => e);
    expect(failure).toBeInstanceOf(ConnectError);
    expect((failure as ConnectError).code).toBe(Code.InvalidArgument);
    expect(decoded.has(request)).toBe(false);
  });
});
