import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blockCovers, normaliseActorId, normaliseBlockTarget } from './blocks.ts';

const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?$/);
const hostName = fc
  .array(label, { minLength: 1, maxLength: 3 })
  .map((parts) => `${parts.join('.')}.example`);
const port = fc.option(fc.integer({ min: 1, max: 65_535 }), { nil: undefined });
const segment = fc.stringMatching(/^[A-Za-z0-9_-]{1,10}$/);
const path = fc
  .array(segment, { minLength: 1, maxLength: 4 })
  .map((parts) => `/${parts.join('/')}`);
const scheme = fc.constantFrom('https', 'http');

/** One actor id, and another spelling of the same id (case, default port, trailing slashes). */
const actorSpellings = fc
  .record({ scheme, host: hostName, port, path, slashes: fc.nat(3), upper: fc.boolean() })
  .map(({ scheme, host, port, path, slashes, upper }) => {
    const defaultPort = scheme === 'https' ? 443 : 80;
    const plain = `${scheme}://${host}${port && port !== defaultPort ? `:${port}` : ''}${path}`;
    const portPart = port ? `:${port}` : `:${defaultPort}`;
    const shownHost = upper ? host.toUpperCase() : host;
    const shownPath = upper ? path.toUpperCase() : path;
    const other = `${upper ? scheme.toUpperCase() : scheme}://${shownHost}${portPart}${shownPath}${'/'.repeat(slashes)}`;
    return { plain, other, host, port: port === defaultPort ? undefined : port };
  });

describe('blocks of remote actors and servers', () => {
  it('an actor block holds for every spelling of the same actor id', () => {
    fc.assert(
      fc.property(actorSpellings, ({ plain, other }) => {
        const target = normaliseBlockTarget('actor', other);
        expect(blockCovers({ kind: 'actor', target }, plain)).toBe(true);
        expect(
          blockCovers({ kind: 'actor', target: normaliseBlockTarget('actor', plain) }, other),
        ).toBe(true);
      }),
    );
  });

  it('a host block holds for every actor on that host and its subdomains, on any port', () => {
    fc.assert(
      fc.property(actorSpellings, label, fc.boolean(), ({ other, host }, sub, typedUpper) => {
        const target = normaliseBlockTarget('host', typedUpper ? host.toUpperCase() : host);
        expect(blockCovers({ kind: 'host', target }, other)).toBe(true);
        const below = other.replace(/:\/\//, `://${sub}.`);
        expect(blockCovers({ kind: 'host', target }, below)).toBe(true);
      }),
    );
  });

  it('a host block with a port holds on that port only', () => {
    fc.assert(
      fc.property(hostName, fc.integer({ min: 1024, max: 65_000 }), path, (host, at, where) => {
        const target = normaliseBlockTarget('host', `${host}:${at}`);
        expect(blockCovers({ kind: 'host', target }, `https://${host}:${at}${where}`)).toBe(true);
        expect(blockCovers({ kind: 'host', target }, `https://${host}:${at + 1}${where}`)).toBe(
          false,
        );
      }),
    );
  });

  it('a block never holds for another server, nor for a host that merely ends the same', () => {
    fc.assert(
      fc.property(actorSpellings, hostName, label, ({ plain, host }, elsewhere, prefix) => {
        fc.pre(elsewhere !== host && !elsewhere.endsWith(`.${host}`));
        const target = normaliseBlockTarget('host', host);
        expect(blockCovers({ kind: 'host', target }, plain.replace(host, elsewhere))).toBe(false);
        // `evilbad.example` is not under `bad.example`.
        const lookalike = plain.replace(host, `${prefix}${host}`);
        expect(blockCovers({ kind: 'host', target }, lookalike)).toBe(false);
      }),
    );
  });

  it('an actor block holds for that actor only', () => {
    const target = normaliseBlockTarget('actor', 'https://bad.example/users/bob');
    expect(blockCovers({ kind: 'actor', target }, 'https://bad.example/users/bob2')).toBe(false);
    expect(blockCovers({ kind: 'actor', target }, 'https://bad.example/users/ada')).toBe(false);
    expect(blockCovers({ kind: 'actor', target }, 'https://bad.example:8443/users/bob')).toBe(
      false,
    );
  });

  it('refuses what could never match, with the reason', () => {
    for (const typed of ['bob', 'ftp://bad.example/u/bob', 'https://user:pw@bad.example/u']) {
      expect(() => normaliseBlockTarget('actor', typed)).toThrow(/not the URL of an actor/);
    }
    for (const typed of ['', 'bad example', 'bad_example', '-bad.example']) {
      expect(() => normaliseBlockTarget('host', typed)).toThrow(/not a host name/);
    }
    expect(normaliseBlockTarget('host', 'https://Bad.Example:443/users/x')).toBe('bad.example');
    expect(normaliseActorId('https://BAD.example:443/Users/Bob//')).toBe(
      'https://bad.example/users/bob',
    );
  });
});
