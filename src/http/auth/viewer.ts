import type { TokenScopes } from '../../domain/tokens/token-scopes.ts';
import type { User } from '../../domain/users/user.types.ts';

/**
 * Who is making a request, as far as this edge could tell. A personal access token carries the
 * scopes it was made with; a session (pages) and a password (the token API's Basic auth) are the
 * person themselves, limited only by their permissions. A CI task token is the actions bot
 * (domain/users/actions-bot.ts) with the task token's scopes.
 */
export type Viewer =
  | { readonly kind: 'anonymous' }
  | { readonly kind: 'user'; readonly user: User; readonly via: 'session' | 'password' }
  | {
      readonly kind: 'user';
      readonly user: User;
      readonly via: 'token';
      readonly scopes: TokenScopes;
    };

export const ANONYMOUS: Viewer = Object.freeze({ kind: 'anonymous' });

export function viewerUser(viewer: Viewer): User | undefined {
  return viewer.kind === 'user' ? viewer.user : undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    viewer: Viewer;
  }
}
