import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { sha256Hex } from '../lib/crypto.ts';
import type { SizedLru } from '../lib/sized-lru.ts';

/**
 * What the pre-receive hook checks in the commits of a push (kiln-hooks/pre-receive), beyond
 * who may move which ref: one rule per ref pattern, the first that matches a ref governing it.
 */
export type PushRule = {
  /** A shell `case` pattern over full ref names (`refs/heads/main`, `refs/heads/release/*`). */
  readonly refPattern: string;
  /** Every new commit must carry a signature git verifies with `allowedSigners`. */
  readonly signed: boolean;
  /** The pusher may not push here, save changes to unprotected files only. */
  readonly unprotectedOnly: boolean;
  /** POSIX extended expression of the files no push may change; '' for none. */
  readonly protectedFiles: string;
  /** POSIX extended expression of the files `unprotectedOnly` lets through; '' for none. */
  readonly unprotectedFiles: string;
};

/** The hook's files for one push: where they are and the environment that names them. */
export type PushRuleFiles = {
  readonly env: Record<string, string>;
  /** Keeps the signatures the hook found good, then removes the files; once receive-pack has exited. */
  dispose(): Promise<void>;
};

/** Where signature verdicts are kept between pushes: key set → newline-ended commit ids. */
export type SignatureVerdicts = SizedLru<string, string>;

const SEPARATOR = '\u001f';
/**
 * How many pushes may verify signatures at once (each starts ssh-keygen once per signed commit,
 * one after the other): one a core, at most four, so a burst of signed pushes cannot take every
 * core from the server.
 */
export const SIGNATURE_CHECKS_AT_ONCE = Math.min(4, availableParallelism());
/** The lock files behind that bound, shared by every push under one repository root. */
const SIGNATURE_SLOTS_DIR = '.signature-slots';
/** Most commit ids kept good under one key set: the newest, past the 41 characters of each. */
const VERDICTS_PER_KEY_SET = 10_000;
/** Nothing a field holds may end its line or split it. */
const UNSAFE_CHARS = ['\n', '\r', SEPARATOR, '\0'];

/**
 * Writes the rules (and, when given, git's allowed-signers list: `principal key` lines) to a
 * private directory of their own, for the hook to read. A file, not the environment: a rule per
 * existing branch may be more than one environment variable may hold. Throws when a field
 * could break the file's lines, which the callers' checks make impossible.
 */
export async function writePushRules(
  rules: readonly PushRule[],
  allowedSigners: string | undefined,
  repoPath: string,
  verdicts?: SignatureVerdicts,
): Promise<PushRuleFiles | undefined> {
  if (rules.length === 0) return undefined;
  const lines = rules.map((rule) => {
    const flags = `${rule.signed ? 's' : ''}${rule.unprotectedOnly ? 'x' : ''}`;
    const fields = [rule.refPattern, flags, rule.protectedFiles, rule.unprotectedFiles];
    if (
      fields.some((field) => UNSAFE_CHARS.some((ch) => field.includes(ch))) ||
      !rule.refPattern.startsWith('refs/')
    ) {
      throw new Error(`not a push rule the hook can read: ${JSON.stringify(rule)}`);
    }
    return fields.join(SEPARATOR);
  });
  const dir = await mkdtemp(path.join(tmpdir(), 'kiln-push-'));
  const rulesFile = path.join(dir, 'rules');
  await writeFile(rulesFile, `${lines.join('\n')}\n`, { mode: 0o600 });
  const env: Record<string, string> = { KILN_PUSH_RULES_FILE: rulesFile };
  if (allowedSigners !== undefined) {
    const signersFile = path.join(dir, 'allowed-signers');
    await writeFile(signersFile, allowedSigners, { mode: 0o600 });
    env.KILN_ALLOWED_SIGNERS = signersFile;
    Object.assign(env, await signatureSlotsEnv(repoPath));
  }
  const remove = () => rm(dir, { recursive: true, force: true });
  if (allowedSigners === undefined || !verdicts) return { env, dispose: remove };
  // Invariant: a verdict holds for the exact key set it was reached under, so adding or removing
  // any key starts over; the hook trusts only ids found good before under this very list.
  const keySet = sha256Hex(allowedSigners);
  env.KILN_SIGNATURES_GOOD = path.join(dir, 'signatures-good');
  env.KILN_SIGNATURES_FOUND = path.join(dir, 'signatures-found');
  await writeFile(env.KILN_SIGNATURES_GOOD, verdicts.get(keySet) ?? '', { mode: 0o600 });
  return {
    env,
    async dispose() {
      const found = await readFile(env.KILN_SIGNATURES_FOUND ?? '', 'utf8').catch(() => '');
      const ids = found.split('\n').filter((id) => /^[0-9a-f]{40,64}$/.test(id));
      if (ids.length > 0) keepVerdicts(verdicts, keySet, ids);
      await remove();
    },
  };
}

/**
 * The hook's bound on signature checks at once (kiln-hooks/pre-receive): a directory of lock
 * files under the repository root (`<root>/<owner>/<name>.git`), made on first use. The name
 * starts with a dot, which no owner's can.
 */
async function signatureSlotsEnv(repoPath: string): Promise<Record<string, string>> {
  const dir = path.join(path.dirname(path.dirname(repoPath)), SIGNATURE_SLOTS_DIR);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return {
    KILN_SIGNATURE_SLOTS: dir,
    KILN_SIGNATURE_SLOT_COUNT: String(SIGNATURE_CHECKS_AT_ONCE),
  };
}

/** Adds `ids` to the good ones of `keySet`, keeping the newest `VERDICTS_PER_KEY_SET`. */
function keepVerdicts(verdicts: SignatureVerdicts, keySet: string, ids: readonly string[]): void {
  const known = (verdicts.get(keySet) ?? '').split('\n').filter(Boolean);
  const kept = [...new Set([...known, ...ids])].slice(-VERDICTS_PER_KEY_SET);
  const text = `${kept.join('\n')}\n`;
  verdicts.set(keySet, text, text.length);
}
