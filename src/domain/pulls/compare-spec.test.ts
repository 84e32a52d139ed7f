import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatHead, parseCompareSpec, parseHead } from './compare-spec.ts';

describe('compare specs', () => {
  it('reads the forms GitHub and Gitea accept', () => {
    expect(parseCompareSpec('main...feature')).toEqual({
      base: 'main',
      head: { branch: 'feature' },
    });
    expect(parseCompareSpec('feature')).toEqual({ head: { branch: 'feature' } });
    expect(parseCompareSpec('main...ann:fix/a')).toEqual({
      base: 'main',
      head: { owner: 'ann', branch: 'fix/a' },
    });
    expect(parseCompareSpec('dev...ann/fork:topic')).toEqual({
      base: 'dev',
      head: { owner: 'ann', repo: 'fork', branch: 'topic' },
    });
    expect(parseHead(':x')).toEqual({ branch: 'x' });
  });

  it('reads back every head it writes', () => {
    const part = fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,12}$/);
    const branch = fc.stringMatching(/^[a-z0-9][a-z0-9/_-]{0,20}$/);
    fc.assert(
      fc.property(part, part, part, part, branch, (bo, bn, ho, hn, b) => {
        const written = formatHead(
          { ownerHandle: bo, name: bn },
          { ownerHandle: ho, name: hn, branch: b },
        );
        const read = parseCompareSpec(`main...${written}`).head;
        if (bo === ho && bn === hn) expect(read).toEqual({ branch: b });
        else expect(read).toEqual({ owner: ho, repo: hn, branch: b });
      }),
    );
  });
});
