import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Invalid, isDomainError, NotFound, Unsupported } from '../../domain/errors.ts';
import type { LocalActorRef } from '../../domain/federation/actor-urls.ts';
import type { Federation } from '../../domain/federation/federation.ts';
import type { LocalActor } from '../../domain/federation/local-actors.ts';
import { orderedCollection, orderedCollectionPage } from '../../domain/federation/vocabulary.ts';
import { Type } from '../../present/schemas/type.ts';
import { sendActivityJson, wantsActivityPub } from './activity-pub.ts';
import { federationErrorHandler } from './federation-errors.ts';
import { signedFetchGuard } from './verify-fetch.ts';
import { inboxVerifier, verifyInboxPost } from './verify-inbox.ts';

const PAGE_SIZE = 20;
/** Activities are a few kilobytes; anything far larger is not one. */
const MAX_ACTIVITY_BYTES = 256 * 1024;
const ACTIVITY_TYPES = [
  'application/activity+json',
  'application/ld+json',
  'application/json',
] as const;

/** The actor a path names: a user's handle, a repository's owner and name, or none (the instance). */
const ActorParams = Type.Object({
  handle: Type.Optional(Type.String()),
  owner: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
});
type Params = {
  handle?: string | undefined;
  owner?: string | undefined;
  name?: string | undefined;
};
const PageQuery = Type.Object({ page: Type.Optional(Type.String()) });
const ActivityParams = Type.Object({ id: Type.String() });

function refOf(params: Params): LocalActorRef {
  if (params.owner !== undefined && params.name !== undefined) {
    return { kind: 'repo', owner: params.owner, name: params.name };
  }
  if (params.handle !== undefined) return { kind: 'user', handle: params.handle };
  return { kind: 'instance' };
}

/**
 * The actor, or undefined after answering 404 (missing and private look the same). For the
 * content negotiation hook, which runs before any route and so before the routes' error handler.
 */
async function findActor(
  federation: Federation,
  reply: FastifyReply,
  ref: LocalActorRef,
): Promise<LocalActor | undefined> {
  try {
    return await federation.actors.get(ref);
  } catch (error) {
    if (!isDomainError(error)) throw error;
    await reply.status(404).type('text/plain').send('not found');
    return undefined;
  }
}

/**
 * An `onRequest` hook for the root instance: the ids people already use, `/{user}` and
 * `/repos/{owner}/{name}`, answer the actor to ActivityPub clients; any other request falls
 * through to the page.
 */
export function actorNegotiation(federation: Federation) {
  const refused = signedFetchGuard(federation, federation.signedFetchRequired);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return;
    if (!wantsActivityPub(request)) return;
    const path = request.url.split('?')[0] ?? '';
    const ref = federation.urls.parse(`${federation.urls.base}${path}`);
    if (!ref || ref.kind === 'instance') return;
    if (await refused(request, reply)) return reply;
    const actor = await findActor(federation, reply, ref);
    if (actor) return sendActivityJson(reply, await federation.actors.document(actor));
    return reply;
  };
}

/**
 * The instance actor, inboxes, outboxes and followers collections. Registered in a plugin of their own so that their body parsers (raw
 * bytes, for the signature digest) apply to nothing else.
 */
export async function actorRoutes(
  parent: FastifyInstance,
  { federation }: { federation: Federation },
): Promise<void> {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  server.setErrorHandler(federationErrorHandler);
  const { actors } = federation;
  // The instance actor stays public: servers verifying our signed fetches read its key.
  const refused = signedFetchGuard(federation, federation.signedFetchRequired);
  for (const type of ACTIVITY_TYPES) {
    server.addContentTypeParser(
      type,
      { parseAs: 'buffer', bodyLimit: MAX_ACTIVITY_BYTES },
      (_r, body, done) => done(null, body),
    );
  }

  /** The actor a route names; a missing or private one is NotFound, answered by the handler. */
  const find = async (ref: LocalActorRef): Promise<LocalActor> => {
    try {
      return await actors.get(ref);
    } catch (error) {
      throw isDomainError(error) ? new NotFound('not found') : error;
    }
  };

  server.get('/federation/actor', async (_request, reply) =>
    sendActivityJson(reply, await actors.document(await actors.get({ kind: 'instance' }))),
  );

  const inbox = async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
    const ref = refOf(request.params);
    const target = ref.kind === 'instance' ? undefined : await find(ref);
    const body = request.body;
    if (!Buffer.isBuffer(body)) throw new Unsupported('send application/activity+json');
    const verified = await verifyInboxPost(inboxVerifier(federation), request, body);
    if ('status' in verified) {
      return reply.status(verified.status).type('text/plain').send(verified.message);
    }
    // Invariant: nothing of a blocked or flooding sender is kept, not even that it was seen.
    const repoId = target?.kind === 'repo' ? target.repo.id : undefined;
    const admitted = await federation.inboxGuard.admit(verified.sender, verified.activity, repoId);
    if (!admitted.ok) {
      if (admitted.why === 'blocked') {
        return reply.status(403).type('text/plain').send(admitted.reason);
      }
      reply.header('Retry-After', String(admitted.retryAfterSeconds));
      return reply.status(429).type('text/plain').send('too many activities: try again later');
    }
    try {
      await federation.inbox.receive(verified);
    } catch (error) {
      request.log.warn({ err: error }, 'federation activity not processed');
      throw new Invalid('the activity could not be processed');
    }
    return reply.status(202).send();
  };
  const actorSchema = { schema: { params: ActorParams } };
  server.post('/federation/inbox', actorSchema, inbox);
  server.post('/federation/users/:handle/inbox', actorSchema, inbox);
  server.post('/federation/repos/:owner/:name/inbox', actorSchema, inbox);

  const collection =
    (which: 'outbox' | 'followers') =>
    async (
      request: FastifyRequest<{ Params: Params; Querystring: { page?: string | undefined } }>,
      reply: FastifyReply,
    ) => {
      if (await refused(request, reply)) return reply;
      const actor = await find(refOf(request.params));
      const id = actors.endpoints(actor)[which];
      const store = which === 'outbox' ? federation.outbox : federation.followers;
      const total = await store.count(actor.key);
      const pageText = request.query.page;
      if (pageText === undefined) return sendActivityJson(reply, orderedCollection(id, total));
      const page = Number(pageText);
      if (!Number.isSafeInteger(page) || page < 1)
        throw new Invalid('page must be a positive integer');
      const offset = (page - 1) * PAGE_SIZE;
      const stored = await store.page(actor.key, offset, PAGE_SIZE);
      const items =
        which === 'outbox'
          ? await filterAsync(stored, (item) => actors.servable(actor.key, item))
          : stored;
      return sendActivityJson(
        reply,
        orderedCollectionPage(id, page, items, offset + stored.length < total),
      );
    };
  for (const which of ['outbox', 'followers'] as const) {
    const schema = { schema: { params: ActorParams, querystring: PageQuery } };
    server.get(`/federation/actor/${which}`, schema, collection(which));
    server.get(`/federation/users/:handle/${which}`, schema, collection(which));
    server.get(`/federation/repos/:owner/:name/${which}`, schema, collection(which));
  }

  // The forks other servers made of a repository (ForgeFed `forks`), oldest first.
  server.get(
    '/federation/repos/:owner/:name/forks',
    { schema: { params: ActorParams, querystring: PageQuery } },
    async (request, reply) => {
      if (await refused(request, reply)) return reply;
      const actor = await find(refOf(request.params));
      if (actor.kind !== 'repo') throw new NotFound('not found');
      const id = federation.urls.repoEndpoint(actor.repo.owner.handle, actor.repo.name, 'forks');
      const forks = (await federation.forks.forksOf(actor.repo)).map((fork) => fork.actor);
      const pageText = request.query.page;
      if (pageText === undefined)
        return sendActivityJson(reply, orderedCollection(id, forks.length));
      const page = Number(pageText);
      if (!Number.isSafeInteger(page) || page < 1)
        throw new Invalid('page must be a positive integer');
      const offset = (page - 1) * PAGE_SIZE;
      const items = forks.slice(offset, offset + PAGE_SIZE);
      return sendActivityJson(
        reply,
        orderedCollectionPage(id, page, items, offset + items.length < forks.length),
      );
    },
  );

  server.get(
    '/federation/activities/:id',
    { schema: { params: ActivityParams } },
    async (request, reply) => {
      if (await refused(request, reply)) return reply;
      const found = await federation.outbox.find(request.params.id);
      if (!found || !(await actors.servable(found.actor, found.activity))) {
        throw new NotFound('not found');
      }
      return sendActivityJson(reply, found.activity);
    },
  );
}

/** The items for which `keep` holds, in order. */
async function filterAsync<T>(items: readonly T[], keep: (item: T) => Promise<boolean>) {
  const kept = await Promise.all(items.map(keep));
  return items.filter((_item, at) => kept[at]);
}
