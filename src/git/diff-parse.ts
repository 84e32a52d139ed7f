/**
 * Parses the output of `git diff --raw --numstat -p -z --no-abbrev`: NUL-separated raw entries
 * (status, modes, ids, unquoted paths), then one numstat entry per file (line counts, `-` for
 * binary), a NUL, then the patch text. Files come in the same order in all three sections, so
 * patch blocks are matched to files by position and paths are never parsed out of the patch,
 * where git would quote them. Pure: the caller runs git.
 */

export type DiffStatus = 'added' | 'deleted' | 'modified' | 'renamed' | 'copied' | 'type-changed';

export interface DiffHunk {
  readonly oldStart: number;
  readonly oldLines: number;
  readonly newStart: number;
  readonly newLines: number;
  /** The text after the second `@@`: git's guess at the enclosing function or section. */
  readonly section: string;
  /** Lines with their prefix: ` ` context, `+` added, `-` removed, `\` no-newline marker. */
  readonly lines: readonly string[];
}

export interface DiffFile {
  readonly status: DiffStatus;
  /** Null for an added file. */
  readonly oldPath: string | null;
  /** Null for a deleted file. */
  readonly newPath: string | null;
  readonly oldMode: string;
  readonly newMode: string;
  readonly oldSha: string;
  readonly newSha: string;
  /** Rename or copy similarity in percent. */
  readonly similarity: number | undefined;
  readonly additions: number;
  readonly deletions: number;
  readonly binary: boolean;
  readonly hunks: readonly DiffHunk[];
  /** Some of this file's hunks were left out to keep within the limits. */
  readonly truncated: boolean;
}

export interface DiffLimits {
  /** Files beyond this many are left out of the list. */
  readonly maxFiles: number;
  /** Hunk lines beyond this many, over all files, are left out. */
  readonly maxLines: number;
}

export interface ParsedDiff {
  readonly files: readonly DiffFile[];
  /** How many files differ, including those left out. */
  readonly totalFiles: number;
  readonly totalAdditions: number;
  readonly totalDeletions: number;
  /** Files or lines were left out (limits, or git's output was cut short). */
  readonly truncated: boolean;
}

const STATUS: Record<string, DiffStatus> = {
  A: 'added',
  D: 'deleted',
  M: 'modified',
  R: 'renamed',
  C: 'copied',
  T: 'type-changed',
};

interface RawEntry {
  status: DiffStatus;
  similarity: number | undefined;
  oldMode: string;
  newMode: string;
  oldSha: string;
  newSha: string;
  oldPath: string | null;
  newPath: string | null;
  additions: number;
  deletions: number;
  binary: boolean;
}

/** Reads NUL-terminated tokens from a buffer. */
class Tokens {
  position = 0;
  readonly data: Buffer;

  constructor(data: Buffer) {
    this.data = data;
  }

  peekByte(): number | undefined {
    return this.data[this.position];
  }

  next(): string | undefined {
    const end = this.data.indexOf(0, this.position);
    if (end === -1) return undefined;
    const token = this.data.toString('utf8', this.position, end);
    this.position = end + 1;
    return token;
  }
}

const COLON = 0x3a;
const NUL = 0;

function readRaw(tokens: Tokens): RawEntry[] | undefined {
  const entries: RawEntry[] = [];
  while (tokens.peekByte() === COLON) {
    const header = tokens.next();
    const [oldMode = '', newMode = '', oldSha = '', newSha = '', code = ''] =
      header?.slice(1).split(' ') ?? [];
    const status = STATUS[code.charAt(0)];
    const first = tokens.next();
    const second = code.startsWith('R') || code.startsWith('C') ? tokens.next() : first;
    if (header === undefined || status === undefined || first === undefined || second === undefined)
      return undefined;
    entries.push({
      status,
      similarity: code.length > 1 ? Number(code.slice(1)) : undefined,
      oldMode,
      newMode,
      oldSha,
      newSha,
      oldPath: status === 'added' ? null : first,
      newPath: status === 'deleted' ? null : second,
      additions: 0,
      deletions: 0,
      binary: false,
    });
  }
  return entries;
}

function readNumstat(tokens: Tokens, entries: RawEntry[]): boolean {
  for (const entry of entries) {
    const token = tokens.next();
    if (token === undefined) return false;
    const [added = '', deleted = '', path = ''] = token.split('\t');
    // A rename or copy leaves the path empty and gives both paths as tokens of their own.
    if (path === '' && (tokens.next() === undefined || tokens.next() === undefined)) return false;
    entry.binary = added === '-' && deleted === '-';
    entry.additions = entry.binary ? 0 : Number(added);
    entry.deletions = entry.binary ? 0 : Number(deleted);
  }
  return true;
}

/** Where one `diff --git` block's lines start and end in git's output (byte offsets). */
type Block = { readonly start: number; readonly end: number };

const HEADER = Buffer.from('\ndiff --git ');
const NEWLINE = 0x0a;

/**
 * Most bytes of one diff line decoded. No page shows more of a line than a few thousand
 * characters, and decoding a line of megabytes to show its start was most of what parsing a
 * large diff cost.
 */
export const MAX_LINE_BYTES = 64 * 1024;

/**
 * Finds the blocks of the patch, one per `diff --git` header, as byte positions in git's output:
 * the bytes are only searched here, and lines are decoded one at a time and only while the line
 * budget lasts, so the work a diff costs grows with what is shown, not with what git wrote.
 */
function patchBlocks(output: Buffer, from: number): Block[] {
  const heads: number[] = [];
  const first = output.indexOf(HEADER.subarray(1), from);
  let at = first === from ? from : output.indexOf(HEADER, from);
  while (at !== -1) {
    const head = output[at] === NEWLINE ? at + 1 : at;
    heads.push(head);
    at = output.indexOf(HEADER, head);
  }
  return heads.map((head, index) => {
    const lineEnd = output.indexOf(NEWLINE, head);
    const next = heads[index + 1];
    return {
      start: lineEnd === -1 ? output.length : lineEnd + 1,
      end: next === undefined ? output.length : next - 1,
    };
  });
}

/** The line from `start` to `end` decoded, at most MAX_LINE_BYTES of it, never mid-character. */
function decodeLine(output: Buffer, start: number, end: number): string {
  let stop = Math.min(end, start + MAX_LINE_BYTES);
  while (stop < end && stop > start && ((output[stop] ?? 0) & 0xc0) === 0x80) stop--;
  return output.toString('utf8', start, stop);
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$/;
const AT = 0x40;
/** ` `, `+`, `-` and `\`: the marks of a hunk's lines. */
const LINE_MARKS = new Set([0x20, 0x2b, 0x2d, 0x5c]);

/** The hunks of one block, within a line budget; reports lines used and whether any were cut. */
function readHunks(
  output: Buffer,
  block: Block,
  budget: number,
): { hunks: DiffHunk[]; used: number; cut: boolean } {
  const hunks: Array<DiffHunk & { lines: string[] }> = [];
  let used = 0;
  let cut = false;
  let at = block.start;
  while (at < block.end) {
    const newline = output.indexOf(NEWLINE, at);
    const end = newline === -1 || newline > block.end ? block.end : newline;
    const first = output[at] ?? 0;
    const start = at;
    at = end + 1;
    const header = first === AT ? HUNK_HEADER.exec(decodeLine(output, start, end)) : null;
    if (header) {
      if (used >= budget) {
        cut = true;
        break;
      }
      hunks.push({
        oldStart: Number(header[1]),
        oldLines: header[2] === undefined ? 1 : Number(header[2]),
        newStart: Number(header[3]),
        newLines: header[4] === undefined ? 1 : Number(header[4]),
        section: header[5] ?? '',
        lines: [],
      });
      continue;
    }
    const hunk = hunks[hunks.length - 1];
    if (!hunk || !LINE_MARKS.has(first) || end === start) continue;
    if (used >= budget) {
      cut = true;
      break;
    }
    hunk.lines.push(decodeLine(output, start, end));
    used++;
  }
  return { hunks, used, cut };
}

/**
 * Parses git's combined diff output, keeping at most `limits.maxFiles` files and
 * `limits.maxLines` hunk lines. `outputCut` says git's output was cut short by the caller.
 */
export function parseDiff(output: Buffer, limits: DiffLimits, outputCut = false): ParsedDiff {
  const tokens = new Tokens(output);
  const entries = readRaw(tokens) ?? [];
  const countsComplete = readNumstat(tokens, entries);
  if (tokens.peekByte() === NUL) tokens.position++;
  const blocks = patchBlocks(output, tokens.position);

  const files: DiffFile[] = [];
  let budget = limits.maxLines;
  let truncated = outputCut || !countsComplete || entries.length > limits.maxFiles;
  let blockIndex = 0;
  for (const entry of entries.slice(0, limits.maxFiles)) {
    // A type change (file ↔ symlink) is printed as a deletion block and an addition block.
    const ownBlocks = blocks.slice(
      blockIndex,
      blockIndex + (entry.status === 'type-changed' ? 2 : 1),
    );
    blockIndex += ownBlocks.length;
    const hunks: DiffHunk[] = [];
    let cut = false;
    for (const block of ownBlocks) {
      const read = readHunks(output, block, budget);
      hunks.push(...read.hunks);
      budget -= read.used;
      cut ||= read.cut;
    }
    const missing = !entry.binary && ownBlocks.length === 0 && outputCut;
    if (cut || missing) truncated = true;
    files.push({ ...entry, hunks, truncated: cut || missing });
  }
  return {
    files,
    totalFiles: entries.length,
    totalAdditions: entries.reduce((sum, e) => sum + e.additions, 0),
    totalDeletions: entries.reduce((sum, e) => sum + e.deletions, 0),
    truncated,
  };
}
