import { describe, expect, it } from 'vitest';
import { html, trusted } from './html.ts';

describe('html', () => {
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
