import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { type DescMethod, type DescService, fromBinary } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import type { FastifyRequest } from 'fastify';

/**
 * A Fastify body parser for `application/proto` that reads the body and checks that it decodes as
 * the route's request message before Connect sees it.
 *
 * Why: connect-es answers an undecodable binary body with `internal` (HTTP 500), where connect-go
 * (and so every Gitea server a runner has met) says `invalid_argument` (400). The bytes are then
 * handed to Connect unchanged, which decodes them again; for the small runner messages that costs
 * little. A gzip body (which no runner sends) is decompressed here, checked the same way and
 * handed on decompressed (Connect uses a body read before it as it is); other encodings are left
 * unread for Connect to refuse.
 */
export function createProtoBodyParser(services: readonly DescService[], maxBytes: number) {
  const methods = new Map<string, DescMethod>();
  for (const service of services) {
    for (const method of service.methods) methods.set(`${service.typeName}/${method.name}`, method);
  }

  return async function parseProtoBody(
    request: FastifyRequest,
    payload: AsyncIterable<Uint8Array>,
  ): Promise<Uint8Array | undefined> {
    const encoding = request.headers['content-encoding'];
    const gzipped = encoding === 'gzip';
    if (encoding !== undefined && encoding !== 'identity' && !gzipped) return undefined;
    const read = await readAll(payload, maxBytes);
    const body = gzipped ? await gunzipAtMost(read, maxBytes) : read;
    const method = methods.get(procedureOf(request.routeOptions.url ?? ''));
    if (method !== undefined) {
      try {
        fromBinary(method.input, body);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new ConnectError(
          `cannot decode ${method.input.typeName}: ${reason}`,
          Code.InvalidArgument,
        );
      }
    }
    return body;
  };
}

const gunzipAsync = promisify(gunzip);

async function gunzipAtMost(body: Buffer, maxBytes: number): Promise<Buffer> {
  if (body.length === 0) return body;
  try {
    return await gunzipAsync(body, { maxOutputLength: maxBytes });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new ConnectError(`request body larger than ${maxBytes} bytes`, Code.ResourceExhausted);
    }
    throw new ConnectError('request body is not valid gzip', Code.InvalidArgument);
  }
}

/** `runner.v1.RunnerService/Register` from `/api/actions/runner.v1.RunnerService/Register`. */
function procedureOf(url: string): string {
  return url.split('/').slice(-2).join('/');
}

async function readAll(payload: AsyncIterable<Uint8Array>, maxBytes: number): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of payload) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      throw new ConnectError(`request body larger than ${maxBytes} bytes`, Code.ResourceExhausted);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}
