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

/**
 * Shortest secret, counted in characters without the whitespace at its ends (which no log
 * masking can tell from ordinary spacing). The built-in runner masks every line of a secret of
 * this length or more (src/runner/engine/masker.ts, `MIN_FRAGMENT_LENGTH`).
 */
export const MIN_SECRET_LENGTH = 4;

/**
 * Whether a secret value can be hidden in a job's log. Invariant: a secret that masking would
 * reveal is never stored and never reaches a job — replacing every `ab` of a log with `***`
 * would blank ordinary text and show the secret by where the stars fall. Values stored before
 * the rule stay stored, are left out of the jobs (as a value that no longer opens is) and can
 * be set again or deleted.
 */
export function maskableSecret(value: string): boolean {
  return [...value.trim()].length >= MIN_SECRET_LENGTH;
}

/**
 * The texts to mask for a secret in a job's log rows, longest first: the value, each of its
 * lines however they end (`\n`, `\r\n`, a lone `\r`), and the same for the value without its
 * carriage returns, all trimmed; a line shorter than `MIN_SECRET_LENGTH` only as part of a
 * longer text. The built-in runner masks by the same rule before a row leaves the machine
 * (src/runner/engine/masker.ts; the runner imports nothing of the server, so the rule is
 * written there too); this is for runners that mask less.
 */
export function secretLogForms(value: string): string[] {
  const texts = [value, value.replaceAll('\r', '')];
  const lines = texts.flatMap((text) => [
    text,
    ...text.split(/\r\n|\n/),
    ...text.split(/\r\n|\r|\n/),
  ]);
  const kept = lines.map((line) => line.trim()).filter((line) => maskableSecret(line));
  return [...new Set(kept)].sort((a, b) => b.length - a.length);
}

/** Throws `Invalid` for a value too large to hand to a job, or a secret too short to mask. */
export function assertCiValue(kind: CiSettingKind, value: string): void {
  if (Buffer.byteLength(value, 'utf8') > MAX_CI_VALUE_BYTES) {
    throw new Invalid(`${kind} value must be at most ${MAX_CI_VALUE_BYTES} bytes`);
  }
  if (kind === 'secret' && !maskableSecret(value)) {
    throw new Invalid(
      `secret value must be at least ${MIN_SECRET_LENGTH} characters (not counting spaces at its ends): masking a value that short in logs would reveal it`,
    );
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
