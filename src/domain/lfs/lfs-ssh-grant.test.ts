import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LFS_SSH_GRANT_SECONDS, LfsSshGrants } from './lfs-ssh-grant.ts';

const claims = fc.record({
  keyId: fc.uuid(),
  fingerprint: fc.string({ minLength: 1, maxLength: 60 }).map((s) => `SHA256:${s}`),
  repoId: fc.uuid(),
  operation: fc.constantFrom('upload' as const, 'download' as const),
});
const NOW = 1_800_000_000_000;

describe('LFS grants over SSH', () => {
  it('give back exactly what was signed, until they expire', () => {
    const grants = new LfsSshGrants('secret');
    fc.assert(
      fc.property(claims, fc.integer({ min: 0, max: 2 * LFS_SSH_GRANT_SECONDS }), (c, age) => {
        const token = grants.mint(c, NOW);
        const verified = grants.verify(token, NOW + age * 1000);
        if (age >= LFS_SSH_GRANT_SECONDS) expect(verified).toBeUndefined();
        else expect(verified).toEqual({ ...c, expiresAt: NOW + LFS_SSH_GRANT_SECONDS * 1000 });
      }),
    );
  });

  it('are worthless under another secret, and other tokens are not grants', () => {
    const mine = new LfsSshGrants('secret');
    const theirs = new LfsSshGrants('another secret');
    const keyless = new LfsSshGrants(undefined);
    fc.assert(
      fc.property(claims, fc.string(), (c, other) => {
        const token = mine.mint(c, NOW);
        expect(theirs.verify(token, NOW)).toBeUndefined();
        expect(keyless.verify(token, NOW)).toBeUndefined();
        expect(mine.verify(other, NOW)).toBeUndefined();
        expect(mine.claims(token)).toBe(true);
      }),
    );
  });
});
