import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type MarkdownBase, renderMarkdown, resolveRelative } from './markdown.ts';

const BASE: MarkdownBase = {
  links: '/repos/o/n/src/main',
  images: '/repos/o/n/raw/main',
  dir: '',
  repo: { owner: 'o', name: 'n' },
};
const render = async (text: string, base: MarkdownBase | undefined = BASE) =>
  (await renderMarkdown(text, base)).value;
/** A pull body as Renovate writes it (test/fixtures/renovate). */
const fixture = (name: string) =>
  readFileSync(new URL(`../../../test/fixtures/renovate/${name}`, import.meta.url), 'utf8');

describe('renderMarkdown: raw HTML', () => {
  it.each([
    ['<script>alert(1)</script>', /<script|alert/],
    ['<img src=x onerror=alert(1)>', /onerror/],
    ['<a href="javascript:alert(1)">x</a>', /javascript:/],
    ['<a href="JaVaScRiPt&colon;alert(1)">x</a>', /javascript|alert/i],
    ['<iframe src="https://example.com/">inside</iframe>', /<iframe|inside/],
    ['<style>body { display: none }</style>', /<style|display/],
    ['<svg onload=alert(1)><text>x</text></svg>', /<svg|onload/],
    ['<p style="position:fixed" onclick="x()">p</p>', /style=|onclick/],
    ['<img src="data:image/svg+xml;base64,PHN2Zz4=">', /<img|data:/],
    ['<form action="/x"><input name="a"><button>go</button></form>', /<form|<button|name=/],
    ['<object data="x.swf"></object><embed src="x.swf">', /<object|<embed/],
    ['<span class="position-fixed">x</span>', /class=/],
    ['[x](javascript:alert(1))', /href=/],
  ])('drops what could run or restyle the page: %s', async (input, forbidden) => {
    expect(await render(input)).not.toMatch(forbidden);
  });

  it('keeps every element of the allowlist', async () => {
    const tags = [
      ...['details', 'summary', 'sub', 'sup', 'kbd', 'b', 'i', 'strong', 'em', 'code'],
      ...['p', 'div', 'span', 'del', 'ins', 's', 'mark', 'small', 'abbr', 'q', 'samp', 'var'],
      ...['blockquote', 'dl', 'dt', 'dd', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'ul'],
      ...['ol', 'li', 'h3', 'ruby', 'rt', 'rp', 'figure', 'figcaption', 'caption', 'cite'],
    ];
    const out = await render(tags.map((tag) => `<${tag}>x</${tag}>`).join(''));
    for (const tag of tags) expect(out).toContain(`<${tag}>x</${tag}>`);
    const voids = await render('a<br>b<hr><img src="https://example.com/a.png" alt="a">');
    expect(voids).toContain('<br />');
    expect(voids).toContain('<hr />');
    expect(voids).toContain('<img src="https://example.com/a.png" alt="a" />');
    expect(await render('<details open><summary>s</summary></details>')).toContain(
      '<details open>',
    );
  });

  it('drops comments', async () => {
    const out = await render('a <!-- inline --> b\n\n<!-- rebase-check -->\n\nc');
    expect(out).not.toMatch(/<!--|rebase-check|inline/);
    expect(out).toContain('<p>c</p>');
  });

  it('points relative links and images in raw HTML into the repository too', async () => {
    const out = await render('<a href="docs/a.md">a</a> <img src="img/x.png">');
    expect(out).toContain('href="/repos/o/n/src/main/docs/a.md"');
    expect(out).toContain('src="/repos/o/n/raw/main/img/x.png"');
  });

  it('marks links off the site nofollow', async () => {
    expect(await render('<a href="https://example.com/" rel="opener">x</a>')).toContain(
      '<a href="https://example.com/" rel="nofollow noopener noreferrer">x</a>',
    );
  });
});

describe('renderMarkdown: GitHub flavour', () => {
  it('renders task lists as disabled checkboxes', async () => {
    const out = await render('- [ ] todo\n- [x] done\n- plain');
    expect(out).toContain('<ul class="contains-task-list">');
    expect(out).toContain(
      '<li class="task-list-item"><input type="checkbox" disabled class="task-list-item-checkbox" /> todo</li>',
    );
    expect(out).toContain('<input type="checkbox" disabled checked');
    expect(out).toContain('<li>plain</li>');
    // Typed as HTML, a box is still only a picture of one.
    expect(await render('<input type="text" name="q" value="v">')).toBe(
      '<input type="checkbox" disabled />',
    );
  });

  it('gives headings de-duplicated anchors from their text', async () => {
    const out = await render(
      '# Hello, World!\n## Hello, World!\n### `code` & Ünïcode_x\n# a\n# a-1\n# a',
    );
    expect(out).toContain('<h1 id="hello-world">');
    expect(out).toContain('<h2 id="hello-world-1">');
    expect(out).toContain('<h3 id="code--ünïcode_x">');
    expect(out).toContain('<h1 id="a-1">a-1</h1>');
    expect(out).toContain('<h1 id="a-2">a</h1>');
    expect(await render('<h2 id="x&quot; onclick=&quot;y">t</h2>')).toBe('<h2>t</h2>');
  });

  it('links URLs, renders tables with alignment classes and emoji shortcodes', async () => {
    const out = await render(
      'see https://example.com/x :tada: :nope:\n\n| a | b |\n|:--|--:|\n| 1 | 2 |\n',
    );
    expect(out).toContain('<a href="https://example.com/x" rel="nofollow noopener noreferrer">');
    expect(out).toContain('🎉 :nope:');
    expect(out).toContain('<th class="text-left">a</th>');
    expect(out).toContain('<td class="text-right">2</td>');
    expect(out).not.toContain('style=');
  });

  it('links #N, owner/repo#N and @user in prose, never in code or links', async () => {
    const out = await render('Fixes #12 and other/lib#3, thanks @alice.');
    expect(out).toContain('<a href="/repos/o/n/pulls/12" class="issue-link">#12</a>');
    expect(out).toContain('<a href="/repos/other/lib/pulls/3" class="issue-link">other/lib#3</a>');
    expect(out).toContain('<a href="/alice" class="user-mention">@alice</a>.');
    const untouched = await render(
      '`#1 @bob` [see #2](https://example.com/) <code>#3</code> <a href="/x">@carol</a> a@b.example issue#4\n\n```\n#5 @dave\n```\n\n    #6 @erin',
    );
    expect(untouched).not.toMatch(/issue-link|user-mention/);
  });

  it('leaves #N as text without a repository, but still links people', async () => {
    const out = (await renderMarkdown('#12 @alice')).value;
    expect(out).toContain('<p>#12 <a href="/alice" class="user-mention">@alice</a></p>');
  });

  it('highlights fenced code', async () => {
    expect(await render('```js\nconst a = 1;\n```')).toContain('hljs-keyword');
  });
});

describe('renderMarkdown: Renovate pull bodies', () => {
  it('renders the onboarding body with its collapsible sections', async () => {
    const out = await render(fixture('onboarding.md'));
    expect(out.match(/<details>/g)).toHaveLength(2);
    expect(out).toContain('<summary>Update dependency typescript to v5.9.3</summary>');
    expect(out).toContain('<code>renovate/typescript-5.x</code>');
    expect(out).toContain('<h3 id="what-to-expect">What to Expect</h3>');
    expect(out).toContain('🚦 Merge this pull request');
    expect(out).not.toMatch(/&lt;(details|summary|br)|<!--|config-hash/);
  });

  it('renders the update body: table, release notes, notes and the rebase box', async () => {
    const out = await render(fixture('update.md'));
    expect(out).toContain('<table>');
    expect(out).toContain('<th>Package</th>');
    expect(out).toContain('<img src="https://developer.mend.io/api/mc/badges/age/npm/fastify');
    expect(out).toContain('<summary>fastify/fastify (fastify)</summary>');
    expect(out).toContain('<a href="/repos/fastify/fastify/pulls/5890" class="issue-link">');
    expect(out).toContain('<code>#5800</code>');
    expect(out).toContain('<sub>(experimental)</sub>');
    expect(out).toContain('📅 <strong>Schedule</strong>');
    expect(out).toContain('ℹ️ <strong>Note</strong>');
    expect(out.match(/<hr \/>/g)?.length).toBeGreaterThanOrEqual(4);
    expect(out).toContain('<input type="checkbox" disabled class="task-list-item-checkbox" />');
    expect(out).toContain('If you want to rebase/retry this PR');
    expect(out).not.toMatch(/&lt;(details|summary|sub)|<!--|renovate-debug|rebase-check/);
  });
});

describe('resolveRelative', () => {
  it('keeps fragments, rooted and absolute URLs', () => {
    expect(resolveRelative('#x', '/p')).toBe('#x');
    expect(resolveRelative('/a', '/p')).toBe('/a');
    expect(resolveRelative('mailto:a@b', '/p')).toBe('mailto:a@b');
  });

  it('resolves from the document directory', () => {
    expect(resolveRelative('../a.md', '/r/src/main', 'docs/guide')).toBe('/r/src/main/docs/a.md');
    expect(resolveRelative('b.png', '/r/raw/main', 'docs')).toBe('/r/raw/main/docs/b.png');
  });

  it('cannot climb above the prefix', () => {
    expect(resolveRelative('../../../etc/passwd', '/repos/o/n/src/main')).toBe(
      '/repos/o/n/src/main/etc/passwd',
    );
  });
});
