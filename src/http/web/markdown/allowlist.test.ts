import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../markdown.ts';

/** Pieces that are harmless alone and try to become markup, handlers or URLs together. */
const PIECES = [
  ...['<', '>', '/', '"', "'", '=', ' ', '\n', '\n\n', '`', '```\n', '    ', '- ', '> ', '|'],
  ...['script', 'iframe', 'svg', 'style', 'img', 'a', 'details', 'math', 'object', 'template'],
  ...[' onerror', ' onload', ' onclick', ' style', ' href', ' src', ' srcset', ' formaction'],
  ...['javascript:', 'JaVaScRiPt:', 'java\tscript:', 'data:text/html,', 'vbscript:', '&#106;'],
  ...['<script>', '<img src=', '<a href="', '<svg onload=x>', '<iframe src=', '<p style="'],
  ...['<details open ontoggle=x>', '<input autofocus onfocus=x>', '<a href=', '<img src="'],
  ...['alert(1)', '<!--', '-->', '<![CDATA[', ']]>', '[x](', ')', '![i](', '<!', '&colon;'],
];

/** Every opening tag's name and attributes in `markup`. */
function tags(markup: string): Array<{ name: string; attributes: string }> {
  return [...markup.matchAll(/<([a-zA-Z][\w-]*)([^>]*)>/g)].map((m) => ({
    name: (m[1] ?? '').toLowerCase(),
    attributes: m[2] ?? '',
  }));
}

/** An attribute value as the browser reads it: entities decoded, tabs and line breaks dropped. */
function asBrowserReads(value: string): string {
  const named: Record<string, string> = {
    amp: '&',
    colon: ':',
    tab: '\t',
    newline: '\n',
    quot: '"',
  };
  return value
    .replace(/&#x([0-9a-f]+);?/gi, (_, hex: string) =>
      String.fromCodePoint(Number.parseInt(hex, 16)),
    )
    .replace(/&#(\d+);?/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&([a-z]+);/gi, (entity, name: string) => named[name.toLowerCase()] ?? entity)
    .replace(/[\t\n\r]/g, '')
    .trim();
}

const FORBIDDEN_TAGS = new Set(['script', 'iframe', 'svg', 'style', 'math', 'object', 'template']);

describe('the markdown allowlist, on generated input', () => {
  it('never lets a forbidden element, a handler, a style or a script URL through', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }), async (pieces) => {
        const out = (await renderMarkdown(pieces.join(''))).value;
        for (const tag of tags(out)) {
          expect(FORBIDDEN_TAGS.has(tag.name)).toBe(false);
          // Attribute names only: a quoted value may hold any text (`href="&lt;p style="`).
          const names = tag.attributes.replace(/"[^"]*"|'[^']*'/g, '""');
          expect(names).not.toMatch(/\son[a-z]+=|\sstyle=|\ssrcset=|\sformaction=/i);
          const urls = [...tag.attributes.matchAll(/\s(?:href|src|cite)="([^"]*)"/g)];
          for (const [, url = ''] of urls) {
            const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(asBrowserReads(url))?.[1];
            if (scheme) expect(['http', 'https', 'mailto']).toContain(scheme.toLowerCase());
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
