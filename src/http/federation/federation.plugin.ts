import type { FastifyInstance } from 'fastify';
import type { Federation } from '../../domain/federation/federation.ts';

/**
 * The federation edge. With federation off (`federation` undefined) nothing is registered, so
 * every federation URL is a 404 and the pages ignore `Accept: application/activity+json`.
 * The content negotiation hook is added to the root instance (it must see requests for the
 * pages' URLs); the routes with raw-body parsers live in a plugin of their own. The routes load
 * only with federation on: they bring Fedify's signature checks, which a server that does not
 * federate should not hold in memory.
 */
export async function registerFederation(
  server: FastifyInstance,
  deps: { federation: Federation | undefined; openRegistrations: boolean; wanted: boolean },
): Promise<void> {
  const { federation } = deps;
  if (!federation) {
    // On by default, so an operator who has not set what it needs should hear why it is off.
    if (deps.wanted) {
      server.log.warn(
        'federation is off: it needs service.base-url (SERVICE_BASE_URL), which kiln serve derives only on a loopback address, and a secret key',
      );
    }
    return;
  }
  const [{ actorNegotiation, actorRoutes }, { discoveryRoutes }] = await Promise.all([
    import('./actor.routes.ts'),
    import('./discovery.routes.ts'),
  ]);
  await server.register(discoveryRoutes, {
    federation,
    openRegistrations: deps.openRegistrations,
  });
  server.addHook('onRequest', actorNegotiation(federation));
  await server.register(actorRoutes, { federation });
  server.addHook('onReady', async () => federation.start());
  server.addHook('onClose', async () => federation.stop());
}
