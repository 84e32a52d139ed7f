import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DomainServices } from '../../domain/services.ts';
import { viewerFromAuthorization } from '../auth/api-auth.ts';
import type { Viewer } from '../auth/viewer.ts';
import { refuseNulInAddress } from '../plugins/nul-guard.ts';
import { registerUnreadBodyHandling } from './unread-body.ts';

/**
 * What every route module under a repository's git address shares (smart HTTP, LFS): bodies
 * left unparsed for the routes to stream, the handling of bodies they leave unread, NUL bytes
 * refused in the address, and the viewer taken from the Authorization header as git sends it
 * (or by `viewerOf`, for an edge that accepts credentials of its own).
 */
export function prepareGitEdge(
  server: FastifyInstance,
  services: Pick<DomainServices, 'tokens' | 'ciTaskTokens'>,
  errorHandler: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => unknown,
  viewerOf: (request: FastifyRequest) => Promise<Viewer> = (request) =>
    viewerFromAuthorization(services, request.headers.authorization),
): void {
  server.setErrorHandler(errorHandler);
  server.removeAllContentTypeParsers();
  server.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
  registerUnreadBodyHandling(server);
  server.addHook('preValidation', refuseNulInAddress);
  server.addHook('onRequest', async (request) => {
    request.viewer = await viewerOf(request);
  });
}
