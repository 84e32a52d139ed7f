import { type DescMessage, type DescService, fromBinary, type Message } from '@bufbuild/protobuf';
import { Code, ConnectError, createContextKey, type Interceptor } from '@connectrpc/connect';
import type { FastifyRequest } from 'fastify';
import { bodyLimitOf } from './body-limits.ts';
import { readBoundedBody } from './bounded-body.ts';

/**
 * A Fastify body parser for `application/proto` that reads and decodes the body before Connect
 * sees it, and hands the decoded message on so that Connect does not decode it again.
 *
 * Why decode here: connect-es answers an undecodable binary body with `internal` (HTTP 500),
 * where connect-go (and so every Gitea server a runner has met) says `invalid_argument` (400).
 * Why hand it on: decoding an UpdateLog of 100 rows twice was a fifth of the call's server CPU
 * (docs/performance.md, runner-tasks). The parser keeps the message in `decoded` under the
 * request and gives Connect an empty body, which decodes to nothing at no cost; the interceptor
 * from `useDecodedBody` puts the message back before any other interceptor or handler sees the
 * call. A gzip body (which no runner sends) is decompressed here and decoded the same way (Connect
 * uses a body read before it as it is); other encodings are left unread for Connect to refuse.
 *
 * `decoders` replaces `fromBinary` for the input messages it names (update-log-decoder.ts); what
 * such a decoder throws is answered as `invalid_argument` too. The body is read within its
 * method's caps (body-limits.ts), `maxBytes` being a ceiling over all of them.
 */
export function createProtoBodyParser(
  services: readonly DescService[],
  maxBytes: number,
  decoded: DecodedBodies,
  decoders: ReadonlyMap<DescMessage, BodyDecoder> = new Map(),
) {
  const methods = new Map<string, { input: DescMessage; decode: BodyDecoder }>();
  for (const service of services) {
    for (const { name, input } of service.methods) {
      const decode = decoders.get(input) ?? ((bytes: Uint8Array) => fromBinary(input, bytes));
      methods.set(`${service.typeName}/${name}`, { input, decode });
    }
  }

  return async function parseProtoBody(
    request: FastifyRequest,
    payload: AsyncIterable<Uint8Array>,
  ): Promise<Uint8Array | undefined> {
    const body = await readEncodedBody(request, payload, false, maxBytes);
    if (body === undefined) return undefined;
    const method = methods.get(procedureOf(request.routeOptions.url ?? ''));
    if (method === undefined) return body;
    let message: Message;
    try {
      message = method.decode(body);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ConnectError(
        `cannot decode ${method.input.typeName}: ${reason}`,
        Code.InvalidArgument,
      );
    }
    decoded.set(request, message);
    return EMPTY;
  };
}

/** Decodes a binary body into its message; throws for bytes that do not encode one. */
export type BodyDecoder = (bytes: Uint8Array) => Message;

/** Messages decoded by the body parser, under the request they came with. */
export type DecodedBodies = WeakMap<FastifyRequest, Message>;

/** The message the body parser decoded for this call, if it decoded one. */
export const decodedBody = createContextKey<Message | undefined>(undefined, {
  description: 'the request message decoded by the body parser',
});

/**
 * Puts the message the body parser decoded in place of the empty one Connect decoded from the
 * empty body it was given. The first interceptor after the error mapping, so nothing else sees
 * the empty message.
 */
export const useDecodedBody: Interceptor = (next) => async (request) => {
  const message = request.contextValues.get(decodedBody);
  if (request.stream || message === undefined) return next(request);
  return next({ ...request, message });
};

/** What Connect is given in place of a body already decoded: it decodes to an empty message. */
const EMPTY = new Uint8Array(0);

/**
 * A Fastify body parser for `application/json`: reads the body within the JSON cap of its method
 * and hands Connect the inflated bytes, which Connect then parses as they are (a body given to
 * it as bytes is not decompressed again).
 */
export function createJsonBodyParser(maxBytes: number) {
  return (request: FastifyRequest, payload: AsyncIterable<Uint8Array>) =>
    readEncodedBody(request, payload, true, maxBytes);
}

/**
 * The body of a request, read and inflated within its method's caps; undefined (left unread
 * for Connect to refuse) for an encoding other than gzip or identity.
 */
async function readEncodedBody(
  request: FastifyRequest,
  payload: AsyncIterable<Uint8Array>,
  json: boolean,
  maxBytes: number,
): Promise<Buffer | undefined> {
  const encoding = request.headers['content-encoding'];
  const gzipped = encoding === 'gzip';
  if (encoding !== undefined && encoding !== 'identity' && !gzipped) return undefined;
  const limit = bodyLimitOf(request.routeOptions.url ?? '', json, maxBytes);
  return readBoundedBody(payload, request.headers['content-length'], gzipped, limit);
}

/** `runner.v1.RunnerService/Register` from `/api/actions/runner.v1.RunnerService/Register`. */
function procedureOf(url: string): string {
  return url.split('/').slice(-2).join('/');
}
