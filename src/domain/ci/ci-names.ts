import { Forbidden, Invalid } from '../errors.ts';

/** The two kinds of CI setting a repository or an organisation holds. */
export type CiSettingKind = 'secret' | 'variable';

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
export function ciName(kind: CiSettingKind, name: string): string {
  const upper = storedCiName(name);
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

/**
 * A name as stored (upper-case), for lookups and deletes: a name `ciName` would refuse simply
 * finds nothing there, so a setting stored before a rule changed can still be removed.
 */
export function storedCiName(name: string): string {
  return name.trim().toUpperCase();
}

/** Throws `Invalid` for a value too large to hand to a job. */
export function assertCiValue(kind: CiSettingKind, value: string): void {
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

/** Throws `Forbidden` unless `access` lets the caller manage the repository's CI settings. */
export function assertRepoCiAdmin(access: RepoCiAccess, kind: CiSettingKind): void {
  if (!access.isRepoAdmin) throw new Forbidden(`only repository admins may manage CI ${kind}s`);
}
