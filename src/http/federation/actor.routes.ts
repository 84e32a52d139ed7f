import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDomainError } from '../../domain/errors.ts';
import type { LocalActorRef } from '../../domain/federation/actor-urls.ts';
import type { Federation } from '../../domain/federation/federation.ts';
import type { LocalActor } from '../../domain/federation/local-actors.ts';
import { orderedCollection, orderedCollectionPage } from '../../domain/federation/vocabulary.ts';
import { sendActivityJson, wantsActivityPub } from './activity-pub.ts';
import { verifyInboxPost } from './verify-inbox.ts';

const PAGE_SIZE = 20;
/** Activities are a few kilobytes; anything far larger is not one. */
const MAX_ACTIVITY_BYTES = 256 * 1024;
const ACTIVITY_TYPES = [
  'application/activity+json',
  'application/ld+json',
  'application/json',
] as const;

type Params = { handle?: string; owner?: string; name?: string };

function refOf(params: Params): LocalActorRef {
  if (params.owner !== undefined && params.name !== undefined) {
    return { kind: 'repo', owner: params.owner, name: params.name };
  }
  if (params.handle !== undefined) return { kind: 'user', handle: params.handle };
  return { kind: 'instance' };
}

/** The actor, or undefined after answering 404 (missing and private look the same). */
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
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return;
    if (!wantsActivityPub(request)) return;
    const path = request.url.split('?')[0] ?? '';
    const ref = federation.urls.parse(`${federation.urls.base}${path}`);
    if (!ref || ref.kind === 'instance') return;
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
  server: FastifyInstance,
  { federation }: { federation: Federation },
): Promise<void> {
  const { actors } = federation;
  for (const type of ACTIVITY_TYPES) {
    server.addContentTypeParser(
      type,
      { parseAs: 'buffer', bodyLimit: MAX_ACTIVITY_BYTES },
      (_r, body, done) => done(null, body),
    );
  }

  const find = (reply: FastifyReply, ref: LocalActorRef) => findActor(federation, reply, ref);

  server.get('/federation/actor', async (_request, reply) =>
    sendActivityJson(reply, await actors.document(await actors.get({ kind: 'instance' }))),
  );

  const inbox = async (request: FastifyRequest, reply: FastifyReply) => {
    const ref = refOf(request.params as Params);
    if (ref.kind !== 'instance' && !(await find(reply, ref))) return reply;
    const body = request.body;
    if (!Buffer.isBuffer(body)) {
      return reply.status(415).type('text/plain').send('send application/activity+json');
    }
    const verified = await verifyInboxPost(
      {
        documents: federation.documents,
        hosts: federation.hosts,
        scheme: new URL(federation.urls.base).protocol,
      },
      request,
      body,
    );
    if ('status' in verified) {
      return reply.status(verified.status).type('text/plain').send(verified.message);
    }
    try {
      await federation.inbox.receive(verified);
    } catch (error) {
      request.log.warn({ err: error }, 'federation activity not processed');
      return reply.status(400).type('text/plain').send('the activity could not be processed');
    }
    return reply.status(202).send();
  };
  server.post('/federation/inbox', inbox);
  server.post('/federation/users/:handle/inbox', inbox);
  server.post('/federation/repos/:owner/:name/inbox', inbox);

  const collection =
    (which: 'outbox' | 'followers') => async (request: FastifyRequest, reply: FastifyReply) => {
      const actor = await find(reply, refOf(request.params as Params));
      if (!actor) return reply;
      const id = actors.endpoints(actor)[which];
      const store = which === 'outbox' ? federation.outbox : federation.followers;
      const total = await store.count(actor.key);
      const pageText = (request.query as { page?: string }).page;
      if (pageText === undefined) return sendActivityJson(reply, orderedCollection(id, total));
      const page = Number(pageText);
      if (!Number.isSafeInteger(page) || page < 1) {
        return reply.status(400).type('text/plain').send('page must be a positive integer');
      }
      const offset = (page - 1) * PAGE_SIZE;
      const items = await store.page(actor.key, offset, PAGE_SIZE);
      return sendActivityJson(
        reply,
        orderedCollectionPage(id, page, items, offset + items.length < total),
      );
    };
  for (const which of ['outbox', 'followers'] as const) {
    server.get(`/federation/actor/${which}`, collection(which));
    server.get(`/federation/users/:handle/${which}`, collection(which));
    server.get(`/federation/repos/:owner/:name/${which}`, collection(which));
  }

  server.get('/federation/activities/:id', async (request, reply) => {
    const { id } = request.params as { id: string };
    const found = await federation.outbox.find(id);
    const actor = found ? await actors.findByKey(found.actor) : undefined;
    if (!found || !actor) return reply.status(404).type('text/plain').send('not found');
    return sendActivityJson(reply, found.activity);
  });
}
