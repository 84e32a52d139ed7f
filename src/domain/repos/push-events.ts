import type { RefChange } from '../../git/refs.ts';
import type { User } from '../users/user.types.ts';
import type { Repository } from './repo.types.ts';

/**
 * What a successful push changed: every ref that moved, old → new (null = absent). Announced as
 * the `push` event (`domain/events.ts`) once receive-pack has finished.
 */
export type Push = {
  readonly repo: Repository;
  readonly pusher: User;
  readonly changes: readonly RefChange[];
};
