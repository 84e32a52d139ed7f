/**
 * The file patterns of a branch protection (`protected_file_patterns`,
 * `unprotected_file_patterns`) as Gitea reads them: a `;`-separated list, matched against a
 * file's path without case; `*` any run of characters but `.` and `/`, `**` any run at all,
 * `?` one character but `.` and `/`, `[abc]`, `[a-z]`, `[!…]` one character in (or not in) a
 * set, `{a,b}` either alternative, `\` the next character literally.
 *
 * Two matchers read one compiled form, so they cannot disagree: `matchesFileGlob` here (a
 * table over path × pattern, no backtracking, within a step budget) and `fileGlobsToEre`, the
 * POSIX extended expression the push hook hands to `grep -E` (an automaton, linear too).
 */

type Token =
  | { readonly kind: 'char'; readonly char: string }
  | { readonly kind: 'one' }
  | { readonly kind: 'star' }
  | { readonly kind: 'super' }
  | { readonly kind: 'set'; readonly negated: boolean; readonly items: readonly string[] };

/** A compiled pattern: its alternatives spelled out, each a flat token list. */
export type FileGlob = { readonly source: string; readonly alternatives: readonly Token[][] };

/** Longest pattern accepted, in characters. */
export const MAX_FILE_GLOB_LENGTH = 255;
/** Most alternatives one pattern may spell out. */
export const MAX_FILE_GLOB_ALTERNATIVES = 32;

/** Why a pattern is refused. */
export class FileGlobError extends Error {}

/** Thrown when matching would take more steps than its budget allows. */
export class FileGlobBudgetError extends Error {}

/** The patterns of a `;`-separated list, trimmed, empty ones dropped (Gitea's reading). */
export function splitFilePatterns(list: string): string[] {
  return list
    .split(';')
    .map((pattern) => pattern.trim())
    .filter((pattern) => pattern !== '');
}

/** Characters a set may hold: the ones a bracket expression reads the same in any engine. */
const SET_ITEM = /^[\p{L}\p{N}_.]$/u;

/**
 * Compiles one pattern. Throws `FileGlobError` for an unclosed `[` or `{`, a nested `{`, an
 * empty set or one holding other than letters, digits, `_` and `.`, a control character, a
 * trailing `\`, or a pattern too long or with too many alternatives.
 */
export function compileFileGlob(source: string): FileGlob {
  const chars = [...source.toLowerCase()];
  if (chars.length > MAX_FILE_GLOB_LENGTH) {
    throw new FileGlobError(`pattern is longer than ${MAX_FILE_GLOB_LENGTH} characters`);
  }
  if (chars.some((ch) => ch < ' ' || ch === '\u007f')) {
    throw new FileGlobError('pattern holds a control character');
  }
  let alternatives: Token[][] = [[]];
  let at = 0;
  const push = (token: Token) => {
    for (const tokens of alternatives) tokens.push(token);
  };
  while (at < chars.length) {
    const ch = chars[at] as string;
    if (ch === '\\') {
      const next = chars[at + 1];
      if (next === undefined) throw new FileGlobError('pattern ends with "\\"');
      push({ kind: 'char', char: next });
      at += 2;
    } else if (ch === '*') {
      let end = at;
      while (chars[end] === '*') end++;
      push({ kind: end - at > 1 ? 'super' : 'star' });
      at = end;
    } else if (ch === '?') {
      push({ kind: 'one' });
      at++;
    } else if (ch === '[') {
      const { token, next } = readSet(chars, at + 1);
      push(token);
      at = next;
    } else if (ch === '{') {
      const { options, next } = readBraces(chars, at + 1);
      alternatives = alternatives.flatMap((tokens) => options.map((o) => [...tokens, ...o]));
      if (alternatives.length > MAX_FILE_GLOB_ALTERNATIVES) {
        throw new FileGlobError(`more than ${MAX_FILE_GLOB_ALTERNATIVES} alternatives`);
      }
      at = next;
    } else {
      push({ kind: 'char', char: ch });
      at++;
    }
  }
  return { source, alternatives };
}

function readSet(chars: readonly string[], start: number): { token: Token; next: number } {
  let at = start;
  const negated = chars[at] === '!';
  if (negated) at++;
  const items: string[] = [];
  while (at < chars.length && chars[at] !== ']') {
    const low = chars[at] as string;
    if (!SET_ITEM.test(low)) throw new FileGlobError(`"${low}" cannot stand in a [...] set`);
    if (chars[at + 1] === '-' && chars[at + 2] !== undefined && chars[at + 2] !== ']') {
      const high = chars[at + 2] as string;
      if (!SET_ITEM.test(high) || high < low) {
        throw new FileGlobError(`"${low}-${high}" is not a range`);
      }
      items.push(`${low}-${high}`);
      at += 3;
    } else {
      items.push(low);
      at++;
    }
  }
  if (at >= chars.length) throw new FileGlobError('unclosed "["');
  if (items.length === 0) throw new FileGlobError('empty "[]"');
  return { token: { kind: 'set', negated, items }, next: at + 1 };
}

function readBraces(chars: readonly string[], start: number) {
  const options: Token[][] = [];
  let current = '';
  for (let at = start; at < chars.length; at++) {
    const ch = chars[at] as string;
    if (ch === '{') throw new FileGlobError('nested "{" is not supported');
    if (ch === '\\' && chars[at + 1] !== undefined) {
      current += ch + chars[at + 1];
      at++;
    } else if (ch === ',' || ch === '}') {
      const [tokens] = compileFileGlob(current).alternatives;
      options.push(tokens ?? []);
      current = '';
      if (ch === '}') return { options, next: at + 1 };
    } else {
      current += ch;
    }
  }
  throw new FileGlobError('unclosed "{"');
}

const SEPARATOR = /[./]/;

function inSet(token: Extract<Token, { kind: 'set' }>, ch: string): boolean {
  const found = token.items.some((item) =>
    item.length === 1 ? item === ch : (item[0] as string) <= ch && ch <= (item[2] as string),
  );
  return found !== token.negated;
}

/**
 * Whether `path` matches the pattern (without case). `budget.steps` is spent one per table
 * cell; at zero it throws `FileGlobBudgetError`, so no path or pattern can hold the caller.
 */
export function matchesFileGlob(glob: FileGlob, path: string, budget: { steps: number }) {
  const text = [...path.toLowerCase()];
  return glob.alternatives.some((tokens) => matchTokens(tokens, text, budget));
}

function matchTokens(tokens: readonly Token[], text: readonly string[], budget: { steps: number }) {
  // reach[i]: the first `t` tokens can consume exactly the first `i` characters.
  let reach = new Array<boolean>(text.length + 1).fill(false);
  reach[0] = true;
  for (const token of tokens) {
    budget.steps -= text.length + 1;
    if (budget.steps < 0) throw new FileGlobBudgetError('file pattern matching took too long');
    const next = new Array<boolean>(text.length + 1).fill(false);
    for (let i = 0; i <= text.length; i++) {
      if (token.kind === 'star' || token.kind === 'super') {
        next[i] =
          reach[i] === true ||
          (i > 0 &&
            next[i - 1] === true &&
            (token.kind === 'super' || !SEPARATOR.test(text[i - 1] as string)));
        continue;
      }
      if (i === 0 || reach[i - 1] !== true) continue;
      const ch = text[i - 1] as string;
      if (token.kind === 'char') next[i] = ch === token.char;
      else if (token.kind === 'one') next[i] = !SEPARATOR.test(ch);
      else next[i] = inSet(token, ch);
    }
    reach = next;
  }
  return reach[text.length] === true;
}

/** Characters special to a POSIX extended expression outside brackets. */
const ERE_SPECIAL = /[.[\]()*+?{}|^$\\]/;

/**
 * The patterns as one POSIX extended expression for a whole path (`grep -E -x -i -z`), or
 * undefined when there are none. Holds no newline (patterns hold no control character).
 */
export function fileGlobsToEre(globs: readonly FileGlob[]): string | undefined {
  const alternatives = globs.flatMap((glob) => glob.alternatives.map(ereOf));
  return alternatives.length === 0 ? undefined : `(${alternatives.join('|')})`;
}

function ereOf(tokens: readonly Token[]): string {
  return tokens
    .map((token) => {
      if (token.kind === 'star') return '[^./]*';
      if (token.kind === 'super') return '.*';
      if (token.kind === 'one') return '[^./]';
      if (token.kind === 'set') return `[${token.negated ? '^' : ''}${token.items.join('')}]`;
      return ERE_SPECIAL.test(token.char) ? `\\${token.char}` : token.char;
    })
    .join('');
}
