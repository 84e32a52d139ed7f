import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_CHARS } from './escape-bytes.ts';
import { encoded, encodedBytes, escapeHtml, html, toBytes, trusted } from './html.ts';

/** Every character that must not reach a page as written, by what it becomes. */
const expectedEscape = (text: string) =>
  text.replace(/[&<>"'`\u0080-\u00bf\u2000-\u2bff]/g, (c) =>
    c === '&'
      ? '&amp;'
      : c === '<'
        ? '&lt;'
        : c === '>'
          ? '&gt;'
          : c === '"'
            ? '&quot;'
            : c === "'"
              ? '&#39;'
              : c === '`'
                ? '&#96;'
                : `&#x${(c.codePointAt(0) ?? 0).toString(16)};`,
  );

describe('html', () => {
  it('escapes every markup character and typography of any text, long runs of them included', () => {
    const piece = fc.oneof(
      fc.constantFrom(
        '&',
        '<',
        '>',
        '"',
        "'",
        '`',
        '…',
        '·',
        '\u0080',
        '\u2bff',
        '\u2c00',
        'é',
        'y',
      ),
      fc.string(),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 200 }), (pieces) => {
        const text = pieces.join('');
        expect(escapeHtml(text)).toBe(expectedEscape(text));
      }),
    );
    expect(escapeHtml('y<&'.repeat(3000))).toBe('y&lt;&amp;'.repeat(3000));
  });

  it('escapes text of any script, surrogates alone included, as it escapes ASCII', () => {
    const piece = fc.oneof(
      fc.constantFrom('<', '&', '`', 'é', '漢', '😀', '\ud800', '\udc00'),
      fc.string({ unit: 'grapheme', maxLength: 8 }),
      fc.string({ unit: 'binary', maxLength: 8 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const text = pieces.join('');
        expect(escapeHtml(text)).toBe(expectedEscape(text));
      }),
      { numRuns: 300 },
    );
  });

  it('escapes long lines alike on either side of the byte-wise escaping limit', () => {
    for (const length of [MAX_CHARS - 1, MAX_CHARS, MAX_CHARS + 1, 4 * MAX_CHARS]) {
      for (const tail of ['<', '漢&', '😀"', '\ud800>']) {
        const text = 'y<&é'.repeat(length / 4 + 1).slice(0, length - tail.length) + tail;
        expect(escapeHtml(text)).toBe(expectedEscape(text));
      }
    }
  });

  it('escapes interpolated text', () => {
    const name = '<script>alert("x")</script>';
    expect(html`<p>${name}</p>`.value).toBe(
      '<p>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</p>',
    );
  });

  it('escapes attribute breakouts', () => {
    expect(html`<a title="${`" onclick='x'`}">`.value).toBe(
      '<a title="&quot; onclick=&#39;x&#39;">',
    );
  });

  it('nests templates and lists without double escaping', () => {
    const items = ['a&b', 'c'].map((item) => html`<li>${item}</li>`);
    expect(html`<ul>${items}</ul>`.value).toBe('<ul><li>a&amp;b</li><li>c</li></ul>');
  });

  it('drops null, undefined and booleans so conditionals read naturally', () => {
    expect(html`${null}${undefined}${false}${true}${0}`.value).toBe('0');
  });

  it('passes trusted markup through', () => {
    expect(html`${trusted('<b>x</b>')}`.value).toBe('<b>x</b>');
  });

  it('writes its own typography as references, so pages of ASCII content stay ASCII', () => {
    const title = 'main · kiln…';
    const page = html`<title>${title} · Kiln</title><p>Search… → ${'Zoë 中文 🎉'}</p>`.value;
    expect(page).toBe(
      '<title>main &#xb7; kiln&#x2026; &#xb7; Kiln</title><p>Search&#x2026; &#x2192; Zoë 中文 🎉</p>',
    );
    expect(html`<p>${'🎉'}</p>`.value).toBe('<p>🎉</p>');
    expect(html`<p>🎉</p>`.value).toBe('<p>&#x1f389;</p>');
  });
});

describe('encoded fragments', () => {
  const sent = (markup: Parameters<typeof toBytes>[0]) => toBytes(markup).toString('utf8');

  it('send their bytes where they stand, through templates, lists and pages', () => {
    const file = encoded(html`<pre>${'a < b Zoë 中文'}</pre>`);
    expect(encodedBytes(file)).toBe(Buffer.byteLength('<pre>a &lt; b Zoë 中文</pre>'));
    const rows = [1, 2].map((n) => html`<li>${n}${file}</li>`);
    const page = html`<main>${html`<ul>${rows}</ul>`}<p>${'é'}</p></main>`;
    expect(sent(page)).toBe(
      '<main><ul><li>1<pre>a &lt; b Zoë 中文</pre></li><li>2<pre>a &lt; b Zoë 中文</pre></li></ul><p>é</p></main>',
    );
    // Two fragments on one page, and markup without any.
    const other = encoded(html`<b>x</b>`);
    expect(sent(html`${other}-${file}-${other}`)).toBe(
      '<b>x</b>-<pre>a &lt; b Zoë 中文</pre>-<b>x</b>',
    );
    expect(sent(html`<p>${'plain'}</p>`)).toBe('<p>plain</p>');
  });

  it('leave text that only looks like a token alone, and never send a token', () => {
    const file = encoded(html`<pre>secret</pre>`);
    const forged = '\u0000kiln-00000000-0\u0000';
    const page = html`<p>${forged}</p>${file}<p>${forged}</p>`;
    const text = sent(page);
    expect(text).toBe(`<p>${forged}</p><pre>secret</pre><p>${forged}</p>`);
    // A fragment's token, copied into content of another page, is not replaced there.
    const token = file.value;
    expect(sent(html`<p>${token}</p>`)).toBe(`<p>${token}</p>`);
    expect(sent(page)).not.toContain(token);
  });
});
