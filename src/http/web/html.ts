/**
 * Escaping-by-default HTML templates. `html\`…\`` escapes every interpolated value unless it is
 * already Html (the result of another `html` call or of `trusted`), so markup can only enter a
 * page through a deliberate, greppable `trusted(...)`.
 */
export class Html {
  readonly value: string;

  constructor(value: string) {
    this.value = value;
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

/**
 * Punctuation and symbols outside ASCII (U+0080–U+00BF, U+2000–U+2BFF: `·`, `…`, `→`, `—`, `’`)
 * become character references; letters of every script stay as written. One such character
 * makes V8 hold a whole page as a two-byte string, and encoding that for the socket costs several
 * times an ASCII page (see ASCII_TEMPLATE below), so Kiln's own typography should not cost a page
 * of ASCII content that.
 */
const ESCAPED = /[&<>"'`\u0080-\u00bf\u2000-\u2bff]/g;
const reference = (c: string) => `&#x${(c.codePointAt(0) ?? 0).toString(16)};`;

export function escapeHtml(text: string): string {
  return text.replace(ESCAPED, (c) => ESCAPES[c] ?? reference(c));
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

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false || value === true) return '';
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(template: TemplateStringsArray, ...values: HtmlValue[]): Html {
  const strings = asciiTemplate(template);
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) {
    out += render(values[i]) + (strings[i + 1] ?? '');
  }
  return new Html(out);
}

/** Markup from a source that is safe by construction (the markdown renderer, icon SVGs). */
export function trusted(markup: string): Html {
  return new Html(markup);
}
