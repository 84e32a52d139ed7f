import { describe, expect, it } from 'vitest';
import { parseTree } from './tree.ts';

function entry(mode: string, name: string, hex: string): Buffer {
  return Buffer.concat([
    Buffer.from(`${mode} `),
    Buffer.from(name, 'utf8'),
    Buffer.from([0]),
    Buffer.from(hex, 'hex'),
  ]);
}

describe('parseTree', () => {
  it('reads every kind of entry, ids containing NUL, space and newline bytes included', () => {
    const awkward = `00200a${'ff'.repeat(16)}20`; // NUL, space, LF inside the raw id
    const bytes = Buffer.concat([
      entry('100644', 'README.md', 'aa'.repeat(20)),
      entry('100755', 'run.sh', awkward),
      entry('120000', 'link', 'bb'.repeat(20)),
      entry('40000', 'src dir', 'cc'.repeat(20)),
      entry('160000', 'vendor', 'dd'.repeat(20)),
      entry('100644', 'ünï.txt', 'ee'.repeat(20)),
    ]);
    expect(parseTree(bytes)).toEqual([
      { mode: '100644', type: 'blob', name: 'README.md', sha: 'aa'.repeat(20) },
      { mode: '100755', type: 'blob', name: 'run.sh', sha: awkward },
      { mode: '120000', type: 'blob', name: 'link', sha: 'bb'.repeat(20) },
      { mode: '040000', type: 'tree', name: 'src dir', sha: 'cc'.repeat(20) },
      { mode: '160000', type: 'commit', name: 'vendor', sha: 'dd'.repeat(20) },
      { mode: '100644', type: 'blob', name: 'ünï.txt', sha: 'ee'.repeat(20) },
    ]);
  });

  it('reads SHA-256 trees when told the id length', () => {
    const bytes = entry('100644', 'a', 'ab'.repeat(32));
    expect(parseTree(bytes, 32)).toEqual([
      { mode: '100644', type: 'blob', name: 'a', sha: 'ab'.repeat(32) },
    ]);
  });

  it('reads an empty tree', () => {
    expect(parseTree(Buffer.alloc(0))).toEqual([]);
  });

  it('refuses a truncated entry', () => {
    const bytes = entry('100644', 'a', 'ab'.repeat(20)).subarray(0, 20);
    expect(() => parseTree(bytes)).toThrow(/malformed tree/);
  });
});
