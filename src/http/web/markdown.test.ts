import { describe, expect, it } from 'vitest';
import { renderMarkdown, resolveRelative } from './markdown.ts';

describe('renderMarkdown', () => {
  it('shows raw HTML as text', async () => {
    const out = (
      await renderMarkdown('# Hi\n\n<script>alert(1)</script>\n<img src=x onerror=alert(1)>')
    ).value;
    expect(out).toContain('<h1>Hi</h1>');
    expect(out).not.toContain('<script');
    expect(out).not.toContain('<img');
    expect(out).toContain('&lt;script&gt;');
  });

  it('refuses javascript: links', async () => {
    const out = (await renderMarkdown('[x](javascript:alert(1))')).value;
    expect(out).not.toContain('href="javascript');
  });

  it('points relative links and images into the repository', async () => {
    const out = (
      await renderMarkdown('[doc](docs/a.md) ![logo](img/logo.png) [abs](https://example.com/x)', {
        links: '/repos/o/n/src/main',
        images: '/repos/o/n/raw/main',
        dir: '',
      })
    ).value;
    expect(out).toContain('href="/repos/o/n/src/main/docs/a.md"');
    expect(out).toContain('src="/repos/o/n/raw/main/img/logo.png"');
    expect(out).toContain('href="https://example.com/x"');
  });

  it('aligns table cells with classes, never style attributes', async () => {
    const out = (await renderMarkdown('| a | b |\n|:--|--:|\n| 1 | 2 |\n')).value;
    expect(out).not.toContain('style=');
    expect(out).toContain('class="text-right"');
  });

  it('highlights fenced code', async () => {
    const out = (await renderMarkdown('```js\nconst a = 1;\n```')).value;
    expect(out).toContain('hljs-keyword');
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
