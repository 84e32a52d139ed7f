import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ALL_SCOPES,
  grants,
  parseScopes,
  requireScopes,
  SCOPE_CATEGORIES,
  scopeNames,
} from './token-scopes.ts';

const scopeName = fc
  .tuple(fc.constantFrom('read', 'write'), fc.constantFrom(...SCOPE_CATEGORIES))
  .map(([level, category]) => `${level}:${category}`);

describe('token scopes', () => {
  it('reads Gitea names and writes them back in Gitea order, write covering read', () => {
    const scopes = parseScopes(['read:user', 'write:repository', 'read:repository', '']);
    expect(scopeNames(scopes)).toEqual(['write:repository', 'read:user']);
    expect(scopeNames(parseScopes('read:issue,write:issue'))).toEqual(['write:issue']);
  });

  it('expands all to write on every category and folds every write back into all', () => {
    expect(scopeNames(parseScopes('all'))).toEqual(['all']);
    expect(scopeNames(parseScopes(SCOPE_CATEGORIES.map((c) => `write:${c}`)))).toEqual(['all']);
    for (const category of SCOPE_CATEGORIES) {
      expect(grants(ALL_SCOPES, 'write', category)).toBe(true);
    }
  });

  it.each([['read:repo'], ['admin'], ['write:repository:x'], ['public-only'], ['READ:user']])(
    'refuses the unknown scope %j',
    (name) => {
      expect(() => parseScopes(name)).toThrow(/invalid access token scope/);
    },
  );

  it('refuses a token that may do nothing', () => {
    expect(() => parseScopes([])).toThrow('access token must have a scope');
    expect(() => parseScopes(',')).toThrow('access token must have a scope');
  });

  it("answers a missing scope in Gitea's words", () => {
    const scopes = parseScopes('read:repository');
    expect(() => requireScopes(scopes, 'read', ['repository'])).not.toThrow();
    expect(() => requireScopes(scopes, 'write', ['repository'])).toThrow(
      'token does not have at least one of required scope(s): [write:repository]',
    );
    expect(() => requireScopes(scopes, 'read', ['user', 'repository'])).toThrow(
      'token does not have at least one of required scope(s): [read:user read:repository]',
    );
  });

  it('grants exactly what was named, write implying read, for any list of names', () => {
    fc.assert(
      fc.property(fc.array(scopeName, { minLength: 1, maxLength: 25 }), (names) => {
        const scopes = parseScopes(names);
        for (const category of SCOPE_CATEGORIES) {
          const write = names.includes(`write:${category}`);
          const read = write || names.includes(`read:${category}`);
          expect(grants(scopes, 'write', category)).toBe(write);
          expect(grants(scopes, 'read', category)).toBe(read);
        }
        // Normalized names read back to the same grants.
        expect(parseScopes(scopeNames(scopes))).toEqual(scopes);
      }),
    );
  });
});
