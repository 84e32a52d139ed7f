import { randomBytes } from 'node:crypto';
import { byteEscaper, MAX_CHARS } from './escape-bytes.ts';

/**
 * Escaping-by-default HTML templates. `html\`…\`` escapes every interpolated value unless it is
 * already Html (the result of another `html` call or of `trusted`), so markup can only enter a
 * page through a deliberate, greppable `trusted(...)`.
 */
export class Html {
  readonly value: string;
  /** Fragments kept as UTF-8 bytes, by the token that stands for each in `value` (`encoded`). */
  readonly fragments: ReadonlyMap<string, Buffer> | undefined;

  constructor(value: string, fragments?: ReadonlyMap<string, Buffer>) {
    this.value = value;
    this.fragments = fragments;
  }

  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** ESCAPES on UTF-8 bytes, for `escapeHtml`. */
const escapeThroughBytes = byteEscaper(ESCAPES);

/** ESCAPES by character code, for the loop of `escapeHtml`. */
const ASCII_ESCAPES: readonly (string | undefined)[] = Array.from(
  { length: 128 },
  (_, code) => ESCAPES[String.fromCharCode(code)],
);

/**
 * Punctuation and symbols outside ASCII (U+0080–U+00BF, U+2000–U+2BFF: `·`, `…`, `→`, `—`, `’`)
 * become character references; letters of every script stay as written. One such character
 * makes V8 hold a whole page as a two-byte string, and encoding that for the socket costs several
 * times an ASCII page (see ASCII_TEMPLATE below), so Kiln's own typography should not cost a page
 * of ASCII content that.
 */
const ESCAPED = /[&<>"'`\u0080-\u00bf\u2000-\u2bff]/g;
const reference = (c: string) => `&#x${(c.codePointAt(0) ?? 0).toString(16)};`;

/** Kiln's own typography: the only characters that need the callback below. */
const TYPOGRAPHY = /[\u0080-\u00bf\u2000-\u2bff]/;
const ASCII_ESCAPED = /[&<>"'`]/;

/**
 * `text` with every character of ESCAPED as a reference. A replace with a callback per match
 * costs a call for each `<` of a line of them (a log page of `<&` rows spent most of its time
 * there): text without typography is escaped on its UTF-8 bytes into one flat string
 * (escape-bytes.ts; about twice as fast again, and without the rope a string built piece by piece
 * leaves the collector), or, when too long or not well-formed, copied in runs between the six
 * ASCII characters; text with none of them is returned as it is.
 */
export function escapeHtml(text: string): string {
  if (TYPOGRAPHY.test(text)) return text.replace(ESCAPED, (c) => ESCAPES[c] ?? reference(c));
  if (!ASCII_ESCAPED.test(text)) return text;
  if (text.length <= MAX_CHARS && text.isWellFormed()) return escapeThroughBytes(text);
  let out = '';
  let last = 0;
  for (let at = 0; at < text.length; at++) {
    const escaped = ASCII_ESCAPES[text.charCodeAt(at)];
    if (escaped === undefined) continue;
    if (at > last) out += text.slice(last, at);
    out += escaped;
    last = at + 1;
  }
  return out + text.slice(last);
}

/**
 * The static text of each template with every non-ASCII character as a reference, made once per
 * template: what Kiln writes itself is ASCII on the wire, so a page is held as a one-byte string
 * unless its content needs more (an ASCII page of 26 MB encoded in 18 ms; with one `…` in it,
 * 240 ms).
 */
const ASCII_TEMPLATE = new WeakMap<TemplateStringsArray, readonly string[]>();
const NON_ASCII = /[\u{80}-\u{10ffff}]/gu;

function asciiTemplate(strings: TemplateStringsArray): readonly string[] {
  let ascii = ASCII_TEMPLATE.get(strings);
  if (!ascii) {
    ascii = strings.map((part) => part.replace(NON_ASCII, reference));
    ASCII_TEMPLATE.set(strings, ascii);
  }
  return ascii;
}

export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

/** The encoded fragments met while rendering one template, gathered for its result. */
type Gathered = { fragments: Map<string, Buffer> | undefined };

function render(value: HtmlValue, gathered: Gathered): string {
  if (value === null || value === undefined || value === false || value === true) return '';
  if (value instanceof Html) {
    if (value.fragments) {
      gathered.fragments ??= new Map();
      for (const [token, bytes] of value.fragments) gathered.fragments.set(token, bytes);
    }
    return value.value;
  }
  if (Array.isArray(value)) {
    let out = '';
    for (const item of value) out += render(item, gathered);
    return out;
  }
  return escapeHtml(String(value));
}

export function html(template: TemplateStringsArray, ...values: HtmlValue[]): Html {
  const strings = asciiTemplate(template);
  const gathered: Gathered = { fragments: undefined };
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) {
    out += render(values[i], gathered) + (strings[i + 1] ?? '');
  }
  return new Html(out, gathered.fragments);
}

/** Markup from a source that is safe by construction (the markdown renderer, icon SVGs). */
export function trusted(markup: string): Html {
  return new Html(markup);
}

/**
 * Tokens stand for encoded fragments in a page's text until it is sent: NUL-delimited (escaped
 * text keeps NUL, so they are told apart from content by a secret made at start, never sent).
 */
const TOKEN_SECRET = randomBytes(12).toString('hex');
const TOKEN = new RegExp(`\u0000kiln-${TOKEN_SECRET}-[0-9a-z]+\u0000`, 'g');
let tokensMade = 0;

/**
 * The same markup kept as its UTF-8 bytes, for a fragment made once and sent on many pages (a
 * highlighted file of a million spans): a page that includes it copies the bytes where its token
 * stands instead of encoding those characters again, which for megabytes of markup was most of
 * what sending the page cost the main thread.
 */
export function encoded(markup: Html): Html {
  const token = `\u0000kiln-${TOKEN_SECRET}-${(tokensMade++).toString(36)}\u0000`;
  return new Html(token, new Map([[token, toBytes(markup)]]));
}

/** How many bytes the encoded fragments of `markup` hold. */
export function encodedBytes(markup: Html): number {
  let total = 0;
  for (const bytes of markup.fragments?.values() ?? []) total += bytes.length;
  return total;
}

/** The markup as UTF-8, each encoded fragment's bytes where its token stands. */
export function toBytes(markup: Html): Buffer {
  const chunks = toChunks(markup);
  return chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks);
}

/**
 * The markup as UTF-8 in pieces: the text between fragments encoded, each fragment's bytes as
 * kept (not copied), in order. One piece when the markup carries no fragment.
 */
export function toChunks(markup: Html): Buffer[] {
  const { value, fragments } = markup;
  if (!fragments) return [Buffer.from(value, 'utf8')];
  const chunks: Buffer[] = [];
  let from = 0;
  for (const match of value.matchAll(TOKEN)) {
    const bytes = fragments.get(match[0]);
    // A token this markup does not carry is text like any other (it cannot be, short of the secret).
    if (bytes === undefined) continue;
    if (match.index > from) chunks.push(Buffer.from(value.slice(from, match.index), 'utf8'));
    chunks.push(bytes);
    from = match.index + match[0].length;
  }
  if (from < value.length || chunks.length === 0)
    chunks.push(Buffer.from(value.slice(from), 'utf8'));
  return chunks;
}
