import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RuntimeTokens } from './runtime-token.ts';

const claims = { taskId: 42, runBackendId: 'run-uuid', jobBackendId: '42' };

describe('RuntimeTokens', () => {
  const tokens = new RuntimeTokens('a secret key');

  it('names the run and job in scp, and gives its claims back until it expires', () => {
    const token = tokens.mint(claims, 10_000_000, 1_000_000);
    const body = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString());
    expect(body.scp).toBe('Actions.Results:run-uuid:42');
    expect(tokens.verify(token, 2_000_000)).toEqual(claims);
    expect(tokens.verify(token, 10_000_000)).toBeUndefined();
    expect(new RuntimeTokens('another key').verify(token, 2_000_000)).toBeUndefined();
  });

  it('refuses any token changed in any character (generated)', () => {
    const token = tokens.mint(claims, Date.now() + 60_000);
    fc.assert(
      fc.property(
        fc.nat(token.length - 1),
        fc.string({ minLength: 1, maxLength: 1 }),
        (at, char) => {
          const changed = token.slice(0, at) + char + token.slice(at + 1);
          // A change to the last character may only touch the signature's unused low bits.
          const same = Buffer.from(changed.split('.')[2] ?? '', 'base64url').equals(
            Buffer.from(token.split('.')[2] ?? '', 'base64url'),
          );
          if (changed !== token && !same) expect(tokens.verify(changed)).toBeUndefined();
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('checks URL signatures whether padded or not, and nothing else', () => {
    const sig = tokens.sign('upload:1:2:3');
    expect(tokens.checkSignature('upload:1:2:3', sig)).toBe(true);
    expect(tokens.checkSignature('upload:1:2:3', `${sig}=`)).toBe(true);
    expect(tokens.checkSignature('upload:1:2:4', sig)).toBe(false);
    expect(tokens.checkSignature('download:1:2:3', sig)).toBe(false);
  });
});
