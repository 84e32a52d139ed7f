import type { User } from '../../domain/users/user.types.ts';

/** Who is making a request, as far as this edge could tell. */
export type Viewer =
  | { readonly kind: 'anonymous' }
  | { readonly kind: 'user'; readonly user: User; readonly via: 'token' | 'session' }
  /** A CI task token: reads its task's repository over git, nothing else (task-token.ts). */
  | { readonly kind: 'task'; readonly taskId: number; readonly repoId: string };

export const ANONYMOUS: Viewer = Object.freeze({ kind: 'anonymous' });

export function viewerUser(viewer: Viewer): User | undefined {
  return viewer.kind === 'user' ? viewer.user : undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    viewer: Viewer;
  }
}
