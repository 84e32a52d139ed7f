import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TooLarge, Unsupported } from '../../domain/errors.ts';
import type { RepoHandle } from '../../git/repo-paths.ts';
import {
  advertiseRefs,
  type GitService,
  inflateRequest,
  isProbe,
  PROBE_LENGTH,
  uploadPack,
  uploadPackInto,
} from '../../git/transport.ts';
import { answerDirectly, bufferBody, canWriteDirectly } from './direct-answer.ts';

/** Git's advertisements and results must never be cached by a proxy. */
const NO_CACHE = {
  'Cache-Control': 'no-cache, max-age=0, must-revalidate',
  Pragma: 'no-cache',
  Expires: 'Fri, 01 Jan 1980 00:00:00 GMT',
} as const;

export function noCache(reply: FastifyReply): FastifyReply {
  return reply.headers(NO_CACHE);
}

export function isGzip(request: FastifyRequest): boolean {
  const encoding = request.headers['content-encoding'];
  return encoding === 'gzip' || encoding === 'x-gzip';
}

/** Bodies git can be given: as sent, or gzip (which Kiln undoes). */
function hasReadableEncoding(request: FastifyRequest): boolean {
  const encoding = request.headers['content-encoding'];
  return encoding === undefined || encoding === 'identity' || isGzip(request);
}

/** The body, read whole, of a request as long as git's probe; undefined for any other. */
async function probeSizedBody(request: FastifyRequest<{ Body: Readable }>) {
  if (request.headers['content-length'] !== String(PROBE_LENGTH) || isGzip(request)) return;
  return Buffer.concat(await request.body.toArray());
}

export function gitProtocolHeader(request: FastifyRequest): string | undefined {
  const header = request.headers['git-protocol'];
  return typeof header === 'string' ? header : undefined;
}

/** The answer to `info/refs?service=…`: the refs git asked for, in the protocol it asked for. */
export async function sendAdvertisement(
  request: FastifyRequest,
  reply: FastifyReply,
  handle: RepoHandle,
  service: GitService,
): Promise<FastifyReply> {
  const body = await advertiseRefs(handle, service, { gitProtocol: gitProtocolHeader(request) });
  return noCache(reply)
    .type(`application/x-git-${service.slice(4)}-advertisement`)
    .send(body);
}

/** Refuses a service request git would not send: another content type or an unknown encoding. */
export function assertServiceRequest(request: FastifyRequest, service: GitService): void {
  const expected = `application/x-git-${service.slice(4)}-request`;
  if (request.headers['content-type'] !== expected) {
    throw new Unsupported(`Expected ${expected}.`);
  }
  if (!hasReadableEncoding(request)) {
    throw new Unsupported('Content-Encoding must be gzip or none.');
  }
}

/**
 * The request body to hand git, and whether git's four-byte probe was all it held (answered
 * with an empty result, as git's own HTTP backend does).
 */
export async function serviceInput(
  request: FastifyRequest<{ Body: Readable }>,
): Promise<{ probe: boolean; input: Readable }> {
  const small = await probeSizedBody(request);
  if (small && isProbe(small)) return { probe: true, input: request.body };
  return { probe: false, input: small ? Readable.from([small]) : request.body };
}

/** Answers a `git-upload-pack` request (a fetch or clone) from the repository. */
export async function serveUploadPack(
  request: FastifyRequest<{ Body: Readable }>,
  reply: FastifyReply,
  handle: RepoHandle,
): Promise<FastifyReply | undefined> {
  const type = 'application/x-git-upload-pack-result';
  const options = { gitProtocol: gitProtocolHeader(request), gzip: isGzip(request) };
  const { probe, input } = await serviceInput(request);
  if (probe) return noCache(reply).type(type).send(Buffer.alloc(0));
  let body = await bufferBody(input);
  if (body.whole && options.gzip) {
    // Inflated before git starts, so that a body that inflates beyond reason is refused
    // with a status rather than cut off in the middle of an answer.
    const plain = await inflateRequest(body.whole);
    if (!plain) throw new TooLarge('The request is too large once inflated.');
    body = { whole: plain, stream: Readable.from([plain]) };
    options.gzip = false;
  }
  if (body.whole && canWriteDirectly(request, reply)) {
    const send = await uploadPackInto(handle, body.stream, options);
    await answerDirectly(request, reply, { 'Content-Type': type, ...NO_CACHE }, send);
    return undefined;
  }
  return noCache(reply)
    .type(type)
    .send(await uploadPack(handle, body.stream, options));
}
