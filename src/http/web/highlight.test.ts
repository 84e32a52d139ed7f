import { describe, expect, it } from 'vitest';
import {
  highlightLines,
  languageFor,
  loadHighlighter,
  splitHighlightedLines,
} from './highlight.ts';

describe('splitHighlightedLines', () => {
  it('closes and reopens spans that cross a line break', () => {
    const lines = splitHighlightedLines('a<span class="c">/* x\ny */</span>b\nc');
    expect(lines).toEqual(['a<span class="c">/* x</span>', '<span class="c">y */</span>b', 'c']);
  });

  it('handles nested spans', () => {
    const lines = splitHighlightedLines('<span class="a"><span class="b">1\n2</span>3\n4</span>');
    expect(lines).toEqual([
      '<span class="a"><span class="b">1</span></span>',
      '<span class="a"><span class="b">2</span>3</span>',
      '<span class="a">4</span>',
    ]);
  });
});

describe('highlightLines', () => {
  it('colours a known language and escapes markup', async () => {
    const lines = await highlightLines('a.ts', 'const x = "<script>";\nlet y = 1;\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('hljs-keyword');
    expect(lines[0]).toContain('&lt;script&gt;');
    expect(lines.join('')).not.toContain('<script>');
  });

  it('escapes unknown languages as plain text', async () => {
    expect(await highlightLines('notes.unknownext', '<b>&</b>')).toEqual([
      '&lt;b&gt;&amp;&lt;/b&gt;',
    ]);
  });

  it('picks languages by name and extension', async () => {
    const hljs = await loadHighlighter();
    expect(languageFor(hljs, 'Dockerfile')).toBe('dockerfile');
    expect(languageFor(hljs, 'main.go')).toBe('go');
    expect(languageFor(hljs, 'README')).toBeUndefined();
  });
});
