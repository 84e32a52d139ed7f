import { Conflict, type DomainError, Invalid, NotFound, Unavailable } from '../domain/errors.ts';

/**
 * A git process that failed: which arguments, how it ended, and what it said on stderr (trimmed,
 * bounded). Never shown to clients; the edges log it and answer with a generic message.
 */
export class GitError extends Error {
  readonly args: readonly string[];
  /** Exit code, or null when the process was killed or never started. */
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
  /** Why Kiln stopped the process (`timed out after …`, `was aborted`), when it did. */
  readonly reason: string | undefined;

  constructor(
    args: readonly string[],
    outcome: { exitCode: number | null; signal?: NodeJS.Signals | null; stderr: string },
    options?: { cause?: unknown; reason?: string },
  ) {
    const how =
      options?.reason ??
      (outcome.exitCode === null
        ? `was killed (${outcome.signal ?? 'no signal'})`
        : `exited with code ${outcome.exitCode}`);
    const firstLine = outcome.stderr.split('\n', 1)[0] ?? '';
    super(
      `git ${args[0] ?? ''} ${how}${firstLine ? `: ${firstLine}` : ''}`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'GitError';
    this.args = args;
    this.exitCode = outcome.exitCode;
    this.signal = outcome.signal ?? null;
    this.stderr = outcome.stderr;
    this.reason = options?.reason;
  }
}

type Translation = readonly [RegExp, (error: GitError) => DomainError];

/**
 * Known stderr shapes (with `LC_ALL=C`) and the domain error each one means. Order matters: the
 * repository check comes first because a missing repository also makes revisions unknown.
 */
const TRANSLATIONS: readonly Translation[] = [
  [
    /not a git repository|does not appear to be a git repository/i,
    (e) => new NotFound('repository not found', { cause: e }),
  ],
  [
    /is at [0-9a-f]+ but expected|cannot lock ref|reference already exists|unable to resolve reference/i,
    (e) => new Conflict('the reference was changed concurrently', { cause: e }),
  ],
  [
    /unknown revision|bad revision|not a valid object name|needed a single revision|bad object|invalid object name|not a valid commit name|not a tree object|couldn't find remote ref|not our ref|no merge base|not something we can merge|with nonexistent object/i,
    (e) => new NotFound('revision not found', { cause: e }),
  ],
  [
    /is not a valid (?:ref|branch|tag) name|bad tag name|not a valid ref name|invalid reference/i,
    (e) => new Invalid('invalid reference name', { cause: e }),
  ],
  [
    /refusing to merge unrelated histories/i,
    (e) => new Conflict('the branches share no history and cannot be merged', { cause: e }),
  ],
  [
    /trying to write non-commit object/i,
    (e) => new Invalid('a branch must point at a commit', { cause: e }),
  ],
];

/**
 * Turns a failed git run into the domain error it stands for, or returns the GitError itself when
 * the failure is not one we recognise (the edges then answer 500).
 */
export function translateGitError(error: GitError): DomainError | GitError {
  if (error.reason?.startsWith('timed out'))
    return new Unavailable('git took too long', { cause: error });
  // A process Kiln stopped says nothing reliable on stderr.
  if (error.reason !== undefined) return error;
  for (const [pattern, make] of TRANSLATIONS) {
    if (pattern.test(error.stderr)) return make(error);
  }
  return error;
}
