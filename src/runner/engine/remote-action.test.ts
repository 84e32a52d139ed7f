/** How a remote `uses:` names its source: the task's actions source, or a full URL. */
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { insideCache, remoteAction } from './remote-action.ts';

const SOURCE = 'https://kiln.example/-/actions';
const ROOT = '/work/actions';
const segment = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,15}$/);
const hostName = segment.filter((host) => !host.includes('..'));
const ref = fc
  .stringMatching(/^[A-Za-z0-9][A-Za-z0-9_./-]{0,15}$/)
  .filter((r) => !/\.\.|\/\/|\/$|\.lock$/.test(r));

/** Pieces an attacker strings together after `uses:`. */
const hostile = fc
  .array(
    fc.constantFrom(
      '..',
      '.',
      '/',
      '@',
      '-',
      '--upload-pack=touch /tmp/x',
      '-c',
      ' ',
      '%2F',
      ':',
      'https://',
      'file://',
      'ext::sh -c',
      'user:pass@',
      'actions',
      'checkout',
      'v4',
      '\\',
      '\n',
      '~',
    ),
    { maxLength: 12 },
  )
  .map((pieces) => pieces.join(''));

describe('remote actions', () => {
  it('fetches owner/repo@ref from the actions source and a full URL from its own host', () => {
    expect(remoteAction('actions/checkout@v4', SOURCE)).toMatchObject({
      url: `${SOURCE}/actions/checkout`,
      source: SOURCE,
      sub: '',
      ref: 'v4',
    });
    expect(
      remoteAction('https://code.example:8443/someone/thing/sub/dir@v1', SOURCE),
    ).toMatchObject({ url: 'https://code.example:8443/someone/thing', sub: '/sub/dir', ref: 'v1' });
    expect(() => remoteAction('thing@v1', SOURCE)).toThrow(/cannot read/);
    expect(() => remoteAction('ftp://host/a/b@v1', SOURCE)).toThrow(/cannot read/);
  });

  it('refuses options for git, other schemes, credentials and paths out of the cache', () => {
    for (const uses of [
      'actions/checkout@--upload-pack=touch /tmp/x',
      'actions/checkout@-c',
      'actions/checkout@v4 --upload-pack=x',
      '../x@v1',
      './../x@v1',
      'actions/..@v1',
      'actions/checkout/../../../../etc@v4',
      'actions/checkout/./x@v4',
      'actions/checkout@../../x',
      'https://user:pass@code.example/o/r@v1',
      'https://../actions/checkout@v4',
      'https://code.example/../checkout@v4',
      'file:///tmp/o/r@v1',
      'ext::sh -c touch% /tmp/x/o/r@v1',
      '-o/r@v1',
      'o/r@',
    ]) {
      expect(() => remoteAction(uses, SOURCE), uses).toThrow(/cannot read/);
    }
  });

  it('keeps refs that differ only in a slash apart', () => {
    const slash = remoteAction('actions/checkout@release/v4', SOURCE);
    const dash = remoteAction('actions/checkout@release-v4', SOURCE);
    expect(slash.cacheDir).not.toBe(dash.cacheDir);
  });

  it('never lets two sources of one name share a cache entry', () => {
    fc.assert(
      fc.property(segment, segment, ref, hostName, (owner, repo, version, host) => {
        const short = remoteAction(`${owner}/${repo}@${version}`, SOURCE);
        const full = remoteAction(`https://${host}/${owner}/${repo}@${version}`, SOURCE);
        expect(short.url).toBe(`${SOURCE}/${owner}/${repo}`);
        expect(full.url).toBe(`https://${host}/${owner}/${repo}`);
        expect(full.cacheDir).not.toBe(short.cacheDir);
        expect(short.cacheDir.split('/')[0]).toBe(owner);
      }),
    );
  });

  it('whatever it accepts stays in its cache entry and gives git no option', () => {
    fc.assert(
      fc.property(fc.oneof(hostile, fc.string()), fc.boolean(), (text, asUrl) => {
        const uses = asUrl ? `https://${text}` : text;
        let action: ReturnType<typeof remoteAction>;
        try {
          action = remoteAction(uses, SOURCE);
        } catch {
          return;
        }
        const cached = resolve(ROOT, action.cacheDir);
        expect(insideCache(ROOT, cached) && cached !== ROOT).toBe(true);
        expect(insideCache(cached, join(cached, action.sub))).toBe(true);
        expect(action.sub.split('/')).not.toContain('..');
        for (const arg of [action.url, action.ref]) expect(arg).not.toMatch(/^-|\s/);
        expect(action.url).toMatch(/^https?:\/\/[^/@\s]+\//);
      }),
      { numRuns: 2000 },
    );
  });
});
