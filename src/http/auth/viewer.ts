import type { User } from '../../domain/users/user.types.ts';

/** Who is making a request, as far as this edge could tell. */
export type Viewer =
  | { readonly kind: 'anonymous' }
  | { readonly kind: 'user'; readonly user: User; readonly via: 'token' | 'session' };

export const ANONYMOUS: Viewer = Object.freeze({ kind: 'anonymous' });

export function viewerUser(viewer: Viewer): User | undefined {
  return viewer.kind === 'user' ? viewer.user : undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    viewer: Viewer;
  }
}
