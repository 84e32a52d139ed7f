import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

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
  /** Removes the files; call once receive-pack has exited. */
  dispose(): Promise<void>;
};

const SEPARATOR = '\u001f';
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
  }
  return { env, dispose: () => rm(dir, { recursive: true, force: true }) };
}
