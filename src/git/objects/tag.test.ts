import { describe, expect, it } from 'vitest';
import { parseTag } from './tag.ts';

describe('parseTag', () => {
  it('reads target, type, name, tagger and message', () => {
    const bytes = Buffer.from(
      'object 1111111111111111111111111111111111111111\ntype commit\ntag v1.0.0\n' +
        'tagger Rel Eng <rel@example.com> 1700000000 +0200\n\nRelease 1.0.0\n',
    );
    expect(parseTag(bytes)).toEqual({
      object: '1111111111111111111111111111111111111111',
      type: 'commit',
      tag: 'v1.0.0',
      tagger: {
        name: 'Rel Eng',
        email: 'rel@example.com',
        timestamp: 1700000000,
        timezone: '+0200',
        timezoneOffsetMinutes: 120,
      },
      message: 'Release 1.0.0\n',
    });
  });

  it('reads a tag without tagger, pointing at a tree', () => {
    const bytes = Buffer.from(
      'object 2222222222222222222222222222222222222222\ntype tree\ntag old\n\n',
    );
    expect(parseTag(bytes)).toMatchObject({
      type: 'tree',
      tag: 'old',
      tagger: undefined,
      message: '',
    });
  });

  it('refuses bytes without object or type', () => {
    expect(() => parseTag(Buffer.from('tag x\n\n'))).toThrow(/malformed tag/);
    expect(() => parseTag(Buffer.from('object 1\ntype frob\n\n'))).toThrow(/malformed tag/);
  });
});
