import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Invalid, NotFound } from '../../domain/errors.ts';
import type { Federation } from '../../domain/federation/federation.ts';
import { Type } from '../../present/schemas/type.ts';
import { KILN_VERSION } from '../../version.ts';
import { federationErrorHandler } from './federation-errors.ts';

const NODEINFO_SCHEMA = 'http://nodeinfo.diaspora.software/ns/schema/2.1';

/**
 * WebFinger and NodeInfo. WebFinger answers `acct:user@host` (the host must be this server's)
 * and the URL of a user or repository; its `self` link points at the actor, its profile-page
 * link at the page. Private repositories are not found, exactly like missing ones.
 */
export async function discoveryRoutes(
  parent: FastifyInstance,
  { federation, openRegistrations }: { federation: Federation; openRegistrations: boolean },
): Promise<void> {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  server.setErrorHandler(federationErrorHandler);
  const { urls, actors } = federation;
  const WebFingerQuery = Type.Object({ resource: Type.Optional(Type.String()) });
  server.get(
    '/.well-known/webfinger',
    { schema: { querystring: WebFingerQuery } },
    async (request, reply) => {
      const { resource } = request.query;
      if (resource === undefined || resource === '') throw new Invalid('resource is required');
      const ref = parseResource(resource, urls.host, (url) => urls.parse(url));
      const actor = ref ? await actors.get(ref).catch(() => undefined) : undefined;
      if (!actor || actor.kind === 'instance') throw new NotFound('no such account');
      const handle = actor.kind === 'user' ? actor.account.handle : undefined;
      return reply
        .type('application/jrd+json; charset=utf-8')
        .header('access-control-allow-origin', '*')
        .send({
          subject: handle ? `acct:${handle}@${urls.host}` : actor.id,
          aliases: [actor.id],
          links: [
            { rel: 'self', type: 'application/activity+json', href: actor.id },
            { rel: 'http://webfinger.net/rel/profile-page', type: 'text/html', href: actor.id },
          ],
        });
    },
  );

  server.get('/.well-known/nodeinfo', async (_request, reply) =>
    reply.send({ links: [{ rel: NODEINFO_SCHEMA, href: `${urls.base}/nodeinfo/2.1` }] }),
  );

  server.get('/nodeinfo/2.1', async (_request, reply) => {
    const usage = await federation.usage();
    return reply.type(`application/json; profile="${NODEINFO_SCHEMA}#"`).send({
      version: '2.1',
      software: { name: 'kiln', version: KILN_VERSION },
      protocols: ['activitypub'],
      services: { inbound: [], outbound: [] },
      openRegistrations,
      usage: { users: { total: usage.users }, localPosts: usage.localPosts },
      metadata: {},
    });
  });
}

/** `acct:name@host` (this host only) or an actor URL, as the local actor reference it names. */
function parseResource<T>(
  resource: string,
  host: string,
  parseUrl: (url: string) => T | undefined,
): T | { kind: 'user'; handle: string } | undefined {
  const acct = /^acct:([^@\s]+)@([^@\s]+)$/i.exec(resource);
  if (acct) {
    const [, handle, at] = acct;
    return handle && at?.toLowerCase() === host.toLowerCase()
      ? { kind: 'user', handle }
      : undefined;
  }
  return parseUrl(resource);
}
