import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePointer } from './lfs-pointer.ts';

const oid = 'ab'.repeat(32);
const pointer = (size: string, extra = '') =>
  Buffer.from(
    `version https://git-lfs.github.com/spec/v1\n${extra}oid sha256:${oid}\nsize ${size}\n`,
  );

describe('parsePointer', () => {
  it('reads the oid and size of a pointer as git-lfs writes it', () => {
    expect(parsePointer(pointer('12345'))).toEqual({ oid, size: 12345 });
  });

  it('keeps extension lines and refuses what only looks like a pointer', () => {
    expect(parsePointer(pointer('1', 'ext-0-foo sha256:00\n'))).toEqual({ oid, size: 1 });
    expect(parsePointer(pointer('-1'))).toBeUndefined();
    expect(parsePointer(pointer('01'))).toBeUndefined();
    expect(parsePointer(Buffer.from(`${pointer('1').toString()}trailing`))).toBeUndefined();
    expect(
      parsePointer(Buffer.from('version https://git-lfs.github.com/spec/v1\n')),
    ).toBeUndefined();
  });

  it('never names an oid that is not 64 lower-case hex digits', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 100 }), fc.string({ maxLength: 20 }), (id, size) => {
        const text = `version https://git-lfs.github.com/spec/v1\noid sha256:${id}\nsize ${size}\n`;
        const parsed = parsePointer(Buffer.from(text));
        if (parsed) {
          expect(parsed.oid).toMatch(/^[0-9a-f]{64}$/);
          expect(Number.isSafeInteger(parsed.size) && parsed.size >= 0).toBe(true);
        }
      }),
    );
  });
});
