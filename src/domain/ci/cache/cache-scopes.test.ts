import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linkIsValid, signLink } from './cache-links.ts';
import { cacheScopesOf } from './cache-scopes.ts';

const branch = fc.constantFrom('main', 'dev', 'release/1', 'trunk');
const run = fc.record({
  ref: fc.oneof(
    branch.map((b) => `refs/heads/${b}`),
    fc.nat(20).map((n) => `refs/pull/${n}/head`),
    fc.constant('refs/tags/v1'),
  ),
  baseRef: fc.oneof(fc.constant(''), branch),
  forkPull: fc.boolean(),
  defaultBranch: branch,
});

describe('cacheScopesOf', () => {
  it('writes under the run’s own ref and reads it first, unless it is a fork’s pull', () => {
    fc.assert(
      fc.property(run, (facts) => {
        const scopes = cacheScopesOf(facts);
        expect(scopes.write).toBe(facts.ref);
        if (!facts.forkPull) expect(scopes.read[0]).toBe(facts.ref);
      }),
    );
  });

  it('never reads another pull request’s entries, and a fork’s pull reads only its base', () => {
    fc.assert(
      fc.property(run, (facts) => {
        const { read } = cacheScopesOf(facts);
        for (const scope of read) {
          if (scope.startsWith('refs/pull/')) expect(scope).toBe(facts.ref);
        }
        if (facts.forkPull) {
          expect(read).toEqual(facts.baseRef ? [`refs/heads/${facts.baseRef}`] : []);
        } else {
          expect(read).toContain(`refs/heads/${facts.defaultBranch}`);
        }
      }),
    );
  });
});

describe('cache links', () => {
  const secret = 'ab'.repeat(32);

  it('hold for their entry until they expire, padded or not', () => {
    const link = signLink(secret, 7, 1_000_000);
    expect(linkIsValid(secret, link, 1_000_000)).toBe(true);
    expect(linkIsValid(secret, { ...link, sig: `${link.sig}=` }, 1_000_000)).toBe(true);
    expect(linkIsValid(secret, link, link.expires * 1000 + 1)).toBe(false);
  });

  it('never hold for another entry, expiry, key or signature', () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.string(), (id, shift, sig) => {
        const link = signLink(secret, id + 1, 0);
        expect(linkIsValid(secret, { ...link, id: id + 2 }, 0)).toBe(false);
        expect(linkIsValid(secret, { ...link, expires: link.expires + shift + 1 }, 0)).toBe(false);
        expect(linkIsValid('cd'.repeat(32), link, 0)).toBe(false);
        if (sig.replace(/=+$/, '') !== link.sig)
          expect(linkIsValid(secret, { ...link, sig }, 0)).toBe(false);
      }),
    );
  });
});
