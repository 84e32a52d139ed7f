/** How a remote `uses:` names its source: the task's actions source, or a full URL. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { remoteAction } from './actions.ts';

const SOURCE = 'https://kiln.example/-/actions';
const segment = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,15}$/);
const ref = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_./-]{0,15}$/);

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

  it('never lets two sources of one name share a cache entry', () => {
    fc.assert(
      fc.property(segment, segment, ref, segment, (owner, repo, version, host) => {
        const short = remoteAction(`${owner}/${repo}@${version}`, SOURCE);
        const full = remoteAction(`https://${host}/${owner}/${repo}@${version}`, SOURCE);
        expect(short.url).toBe(`${SOURCE}/${owner}/${repo}`);
        expect(full.url).toBe(`https://${host}/${owner}/${repo}`);
        expect(full.cacheDir).not.toBe(short.cacheDir);
        expect(short.cacheDir.split('/')[0]).toBe(owner);
      }),
    );
  });
});
