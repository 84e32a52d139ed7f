import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listLoans } from './object-loans.ts';
import { RepoPaths } from './repo-paths.ts';

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** A root with `count` repository directories of one owner; the last borrows from the first. */
function rootWith(count: number): RepoPaths {
  root = mkdtempSync(path.join(tmpdir(), 'kiln-loans-'));
  for (let i = 0; i < count; i += 1)
    mkdirSync(path.join(root, 'alice', `r${i}.git`, 'objects', 'info'), { recursive: true });
  const lender = path.join(root, 'alice', 'r0.git', 'objects');
  writeFileSync(
    path.join(root, 'alice', `r${count - 1}.git`, 'objects', 'info', 'alternates'),
    `${lender}\n`,
  );
  return new RepoPaths(root);
}

describe('listLoans', () => {
  it('names borrower and lender of every loan on disk', async () => {
    const paths = rootWith(3);
    const loans = await listLoans(paths);
    expect(loans.map((loan) => [loan.borrower.key, loan.lender?.key])).toEqual([
      ['alice/r2', 'alice/r0'],
    ]);
  });

  it('leaves the handles requests remember alone, however many repositories it walks', async () => {
    const paths = rootWith(40);
    const asked = paths.resolve({ owner: 'alice', name: 'r1' });
    await listLoans(paths);
    expect(paths.remembered).toBe(1);
    expect(paths.resolve({ owner: 'alice', name: 'r1' })).toBe(asked);
  });
});
