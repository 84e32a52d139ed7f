import { Invalid } from '../errors.ts';

const NAME = /^[A-Z_][A-Z0-9_]*$/;
const MAX_NAME_LENGTH = 255;
/** Names the runner or the forge set themselves; a repository may not shadow them. */
const RESERVED_PREFIXES = ['GITHUB_', 'GITEA_', 'FORGEJO_', 'RUNNER_'];
const RESERVED_NAMES = new Set(['CI']);
/** Both secrets and variables reach jobs as environment values; 64 KiB is plenty for either. */
export const MAX_CI_VALUE_BYTES = 64 * 1024;

/**
 * A secret or variable name as stored: upper-cased (workflows see them that way), letters,
 * digits and underscores, not starting with a digit, not a name the runner sets itself.
 * Throws `Invalid` otherwise.
 */
export function ciName(kind: 'secret' | 'variable', name: string): string {
  const upper = name.trim().toUpperCase();
  if (upper === '' || upper.length > MAX_NAME_LENGTH || !NAME.test(upper)) {
    throw new Invalid(
      `${kind} name must be letters, digits and underscores, not starting with a digit`,
    );
  }
  if (RESERVED_NAMES.has(upper) || RESERVED_PREFIXES.some((prefix) => upper.startsWith(prefix))) {
    throw new Invalid(`${kind} name ${upper} is reserved`);
  }
  return upper;
}

/** Throws `Invalid` for a value too large to hand to a job. */
export function assertCiValue(kind: 'secret' | 'variable', value: string): void {
  if (Buffer.byteLength(value, 'utf8') > MAX_CI_VALUE_BYTES) {
    throw new Invalid(`${kind} value must be at most ${MAX_CI_VALUE_BYTES} bytes`);
  }
}

/** What a caller may do to one repository's CI settings, computed by the caller. */
export type RepoCiAccess = {
  readonly repoId: string;
  /** Repository admins (and site admins) manage secrets and variables. */
  readonly isRepoAdmin: boolean;
};
