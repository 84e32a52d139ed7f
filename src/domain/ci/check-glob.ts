/**
 * The glob patterns of a branch protection's required checks, as Gitea reads
 * `status_check_contexts`: `*` (and `**`) any run of characters, `/` included; `?` one
 * character; `[abc]`, `[a-z]`, `[!…]` a character in (or not in) a set; `{a,b}` either
 * alternative (nestable); `\` takes the next character literally. Anything else matches itself.
 */

/** One position of a pattern without alternatives. */
type Token =
  | { readonly kind: 'char'; readonly char: string }
  | { readonly kind: 'one' }
  | { readonly kind: 'star' }
  | {
      readonly kind: 'set';
      readonly negated: boolean;
      readonly ranges: readonly (readonly [string, string])[];
    };

/** A compiled pattern: each alternative spelled out as a flat token list. */
export type CheckGlob = { readonly source: string; readonly alternatives: readonly Token[][] };

/** Longest pattern accepted, in characters (a context is a workflow, job and event name). */
export const MAX_GLOB_LENGTH = 255;
/** Most alternatives one pattern may spell out (`{a,b}{c,d}` is four). */
export const MAX_GLOB_ALTERNATIVES = 64;

/** Why a pattern is refused. */
export class CheckGlobError extends Error {}

type Piece = Token | { readonly kind: 'alt'; readonly options: Piece[][] };

/**
 * Compiles a pattern. Throws `CheckGlobError` for an unclosed `[` or `{`, an empty set, a
 * trailing `\`, a pattern longer than `MAX_GLOB_LENGTH` or spelling out more than
 * `MAX_GLOB_ALTERNATIVES` alternatives.
 */
export function compileCheckGlob(source: string): CheckGlob {
  if ([...source].length > MAX_GLOB_LENGTH) {
    throw new CheckGlobError(`pattern is longer than ${MAX_GLOB_LENGTH} characters`);
  }
  const chars = [...source];
  const state = { at: 0 };
  const pieces = parseSequence(chars, state, false);
  if (state.at < chars.length) throw new CheckGlobError(`unexpected "${chars[state.at]}"`);
  return { source, alternatives: spell(pieces) };
}

/** Reads pieces up to the end, or (inside braces) up to the `,` or `}` that ends an option. */
function parseSequence(chars: readonly string[], state: { at: number }, inBraces: boolean) {
  const pieces: Piece[] = [];
  while (state.at < chars.length) {
    const char = chars[state.at] ?? '';
    if (inBraces && (char === ',' || char === '}')) break;
    state.at += 1;
    if (char === '\\') {
      const next = chars[state.at];
      if (next === undefined) throw new CheckGlobError('pattern ends with "\\"');
      state.at += 1;
      pieces.push({ kind: 'char', char: next });
    } else if (char === '*') {
      // `**` is the same as `*` here: contexts have no separators.
      if (pieces.at(-1)?.kind !== 'star') pieces.push({ kind: 'star' });
    } else if (char === '?') pieces.push({ kind: 'one' });
    else if (char === '[') pieces.push(parseSet(chars, state));
    else if (char === '{') pieces.push(parseAlternatives(chars, state));
    else pieces.push({ kind: 'char', char });
  }
  return pieces;
}

function parseSet(chars: readonly string[], state: { at: number }): Token {
  const negated = chars[state.at] === '!';
  if (negated) state.at += 1;
  const ranges: [string, string][] = [];
  while (chars[state.at] !== ']') {
    let low = chars[state.at];
    if (low === undefined) throw new CheckGlobError('"[" is not closed');
    if (low === '\\') {
      state.at += 1;
      low = chars[state.at];
      if (low === undefined) throw new CheckGlobError('"[" is not closed');
    }
    state.at += 1;
    const high = chars[state.at + 1];
    if (chars[state.at] === '-' && high !== undefined && high !== ']') {
      if (high < low) throw new CheckGlobError(`range ${low}-${high} is backwards`);
      ranges.push([low, high]);
      state.at += 2;
    } else ranges.push([low, low]);
  }
  state.at += 1;
  if (ranges.length === 0) throw new CheckGlobError('"[]" matches nothing');
  return { kind: 'set', negated, ranges };
}

function parseAlternatives(chars: readonly string[], state: { at: number }): Piece {
  const options: Piece[][] = [];
  for (;;) {
    options.push(parseSequence(chars, state, true));
    const end = chars[state.at];
    if (end === undefined) throw new CheckGlobError('"{" is not closed');
    state.at += 1;
    if (end === '}') return { kind: 'alt', options };
  }
}

/** Every flat token list the pieces can spell, refused past `MAX_GLOB_ALTERNATIVES`. */
function spell(pieces: readonly Piece[]): Token[][] {
  let spelled: Token[][] = [[]];
  for (const piece of pieces) {
    const endings = piece.kind === 'alt' ? piece.options.flatMap(spell) : [[piece]];
    if (spelled.length * endings.length > MAX_GLOB_ALTERNATIVES) {
      throw new CheckGlobError(
        `pattern spells out more than ${MAX_GLOB_ALTERNATIVES} alternatives`,
      );
    }
    spelled = spelled.flatMap((start) => endings.map((end) => [...start, ...end]));
  }
  return spelled;
}

/**
 * How many character comparisons one evaluation may spend. Matching is at worst the pattern's
 * length times the context's for each alternative; the budget bounds the sum, so a rule and
 * contexts written to be slow cannot hold the event loop. Spent, the rest match nothing.
 */
export type MatchBudget = { left: number };

/** A budget for one merge decision: a few milliseconds of comparisons at most. */
export function matchBudget(): MatchBudget {
  return { left: 2_000_000 };
}

/** Whether `text` matches the pattern as a whole; false once the budget is spent. */
export function matchesCheckGlob(glob: CheckGlob, text: string, budget: MatchBudget): boolean {
  const chars = [...text];
  return glob.alternatives.some((tokens) => matchFlat(tokens, chars, budget));
}

/**
 * Greedy matching with one resumption point (the last `*`): when a later token fails, the last
 * star takes one more character. Linear in practice, pattern × text at worst.
 */
function matchFlat(tokens: readonly Token[], chars: readonly string[], budget: MatchBudget) {
  let t = 0;
  let c = 0;
  let starAt = -1;
  let starText = 0;
  while (c < chars.length) {
    if (--budget.left < 0) return false;
    const token = tokens[t];
    if (token?.kind === 'star') {
      starAt = t;
      starText = c;
      t += 1;
    } else if (token !== undefined && matchesOne(token, chars[c] ?? '')) {
      t += 1;
      c += 1;
    } else if (starAt >= 0) {
      t = starAt + 1;
      starText += 1;
      c = starText;
    } else return false;
  }
  while (tokens[t]?.kind === 'star') t += 1;
  return t === tokens.length;
}

function matchesOne(token: Exclude<Token, { kind: 'star' }>, char: string): boolean {
  if (token.kind === 'one') return true;
  if (token.kind === 'char') return token.char === char;
  const inside = token.ranges.some(([low, high]) => low <= char && char <= high);
  return inside !== token.negated;
}
