import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ansiToHtml, parseAnsi } from './ansi.ts';

const ESC = '\u001b';

describe('parseAnsi', () => {
  it('turns foreground colours and bold into classes, and reset ends them', () => {
    expect(parseAnsi(`${ESC}[31merror${ESC}[0m done ${ESC}[1;92mok${ESC}[m`)).toEqual([
      { text: 'error', classes: 'ansi-31' },
      { text: ' done ', classes: '' },
      { text: 'ok', classes: 'ansi-92 ansi-bold' },
    ]);
  });

  it('drops other sequences without leaving their bytes in the text', () => {
    expect(parseAnsi(`a${ESC}[2Kb${ESC}]0;title\u0007c${ESC}(Bd`)).toEqual([
      { text: 'abcd', classes: '' },
    ]);
  });

  it('skips 256-colour and true-colour parameters instead of reading them as colours', () => {
    expect(parseAnsi(`${ESC}[38;5;31mx${ESC}[38;2;1;32;3my`)).toEqual([
      { text: 'xy', classes: '' },
    ]);
  });

  it('keeps a sequence cut off at the end of the line out of the text', () => {
    expect(parseAnsi(`tail${ESC}[3`)).toEqual([{ text: 'tail', classes: '' }]);
  });
});

describe('ansiToHtml', () => {
  it('escapes the text inside and outside coloured spans', () => {
    expect(ansiToHtml(`<b>${ESC}[33m"&'<script>`).value).toBe(
      '&lt;b&gt;<span class="ansi-33">&quot;&amp;&#39;&lt;script&gt;</span>',
    );
  });

  it('never lets markup or escape bytes through, whatever the line holds', () => {
    const pieces = fc.constantFrom(
      '<',
      '>',
      '&',
      '"',
      ESC,
      '[',
      ']',
      ';',
      'm',
      '1',
      '3',
      '\u0007',
      'x',
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 60 }), (parts) => {
        const out = ansiToHtml(parts.join('')).value;
        expect(out).not.toContain(ESC);
        const withoutSpans = out.replace(/<span class="(ansi-\d+ ?|ansi-bold ?)+">|<\/span>/g, '');
        expect(withoutSpans).not.toMatch(/[<>"]/);
      }),
    );
  });
});
