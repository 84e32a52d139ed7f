import { type Html, html } from '../html.ts';

/** A run of text in one style; `classes` is empty for unstyled text. */
export type AnsiSegment = { readonly text: string; readonly classes: string };

type Style = { fg: number | undefined; bold: boolean };

const ESC = '\u001b';
const BEL = '\u0007';

/** The class list of a style: `ansi-31` for a colour, `ansi-bold` for bold. */
function classesOf(style: Style): string {
  const classes: string[] = [];
  if (style.fg !== undefined) classes.push(`ansi-${style.fg}`);
  if (style.bold) classes.push('ansi-bold');
  return classes.join(' ');
}

/**
 * Applies the parameters of one SGR sequence (`ESC [ … m`). Only foreground colours 30–37 and
 * 90–97, bold and the resets are kept; 256-colour and true-colour forms (`38;5;n`,
 * `38;2;r;g;b`, and the same for 48) are skipped whole so their numbers are never misread as
 * colours of their own.
 */
function applySgr(style: Style, params: string): void {
  const codes = params === '' ? [0] : params.split(';').map((part) => Number(part || '0'));
  for (let at = 0; at < codes.length; at++) {
    const code = codes[at] ?? 0;
    if (code === 0) {
      style.fg = undefined;
      style.bold = false;
    } else if (code === 1) style.bold = true;
    else if (code === 22) style.bold = false;
    else if (code === 39) style.fg = undefined;
    else if ((code >= 30 && code <= 37) || (code >= 90 && code <= 97)) style.fg = code;
    else if (code === 38 || code === 48)
      at += codes[at + 1] === 5 ? 2 : codes[at + 1] === 2 ? 4 : 1;
  }
}

/** Where the escape sequence starting at `start` (an ESC) ends, and its SGR parameters if any. */
function sequenceAt(line: string, start: number): { end: number; sgr: string | undefined } {
  const kind = line[start + 1];
  if (kind === '[') {
    // CSI: parameter and intermediate bytes, then one final byte in @ … ~.
    let at = start + 2;
    while (at < line.length && !/[@-~]/.test(line[at] ?? '')) at++;
    const params = line.slice(start + 2, at);
    const sgr = line[at] === 'm' && /^[\d;]*$/.test(params) ? params : undefined;
    return { end: Math.min(at + 1, line.length), sgr };
  }
  if (kind === ']') {
    // OSC (window titles, hyperlinks): up to BEL or ESC \.
    let at = start + 2;
    while (at < line.length && line[at] !== BEL && !(line[at] === ESC && line[at + 1] === '\\')) {
      at++;
    }
    return { end: Math.min(at + (line[at] === ESC ? 2 : 1), line.length), sgr: undefined };
  }
  // Other escapes (charset choices like `ESC ( B`): intermediate bytes, then one final byte.
  let at = start + 1;
  while (at < line.length && /[ -/]/.test(line[at] ?? '')) at++;
  return { end: Math.min(at + 1, line.length), sgr: undefined };
}

/**
 * Splits one log line into styled runs, in one pass over its characters. Escape sequences never
 * reach the output: SGR colours become classes, every other sequence is dropped, and the text is
 * left for the template to escape, so a log can never carry markup into a page.
 */
export function parseAnsi(line: string): AnsiSegment[] {
  const segments: AnsiSegment[] = [];
  const style: Style = { fg: undefined, bold: false };
  let textStart = 0;
  let at = line.indexOf(ESC);
  const push = (end: number) => {
    if (end <= textStart) return;
    const text = line.slice(textStart, end);
    const classes = classesOf(style);
    const last = segments[segments.length - 1];
    if (last !== undefined && last.classes === classes) {
      segments[segments.length - 1] = { text: last.text + text, classes };
    } else segments.push({ text, classes });
  };
  while (at !== -1) {
    push(at);
    const { end, sgr } = sequenceAt(line, at);
    if (sgr !== undefined) applySgr(style, sgr);
    textStart = end;
    at = line.indexOf(ESC, end);
  }
  push(line.length);
  return segments;
}

/** One log line as escaped HTML, coloured spans for its styled runs. */
export function ansiToHtml(line: string): Html {
  return html`${parseAnsi(line).map((segment) =>
    segment.classes === ''
      ? segment.text
      : html`<span class="${segment.classes}">${segment.text}</span>`,
  )}`;
}
