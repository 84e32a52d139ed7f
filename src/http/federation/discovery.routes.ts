import type { FastifyInstance } from 'fastify';
import type { Federation } from '../../domain/federation/federation.ts';
import { KILN_VERSION } from '../../version.ts';

const NODEINFO_SCHEMA = 'http://nodeinfo.diaspora.software/ns/schema/2.1';

/**
 * WebFinger and NodeInfo. WebFinger answers `acct:user@host` (the host must be this server's)
 * and the URL of a user or repository; its `self` link points at the actor, its profile-page
 * link at the page. Private repositories are not found, exactly like missing ones.
 */
export function registerDiscoveryRoutes(
  server: FastifyInstance,
  federation: Federation,
  openRegistrations: boolean,
): void {
  const { urls, actors } = federation;
  server.get('/.well-known/webfinger', async (request, reply) => {
    const { resource } = request.query as { resource?: unknown };
    if (typeof resource !== 'string' || resource === '') {
      return reply.status(400).type('text/plain').send('resource is required');
    }
    const ref = parseResource(resource, urls.host, (url) => urls.parse(url));
    const actor = ref ? await actors.get(ref).catch(() => undefined) : undefined;
    if (!actor || actor.kind === 'instance') {
      return reply.status(404).type('text/plain').send('no such account');
    }
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
  });

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
