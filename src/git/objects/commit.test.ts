import { describe, expect, it } from 'vitest';
import { parseCommit } from './commit.ts';

const TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const P1 = '1111111111111111111111111111111111111111';
const P2 = '2222222222222222222222222222222222222222';

describe('parseCommit', () => {
  it('reads tree, parents, identities and message', () => {
    const bytes = Buffer.from(
      `tree ${TREE}\nparent ${P1}\nparent ${P2}\n` +
        'author Ada Lovelace <ada@example.com> 1700000000 +0130\n' +
        'committer Grace Hopper <grace@example.com> 1700000123 -0500\n' +
        '\nMerge branch feature\n\nBody line.\n',
    );
    const commit = parseCommit(bytes);
    expect(commit.tree).toBe(TREE);
    expect(commit.parents).toEqual([P1, P2]);
    expect(commit.author).toEqual({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      timestamp: 1700000000,
      timezone: '+0130',
      timezoneOffsetMinutes: 90,
    });
    expect(commit.committer).toMatchObject({
      name: 'Grace Hopper',
      timestamp: 1700000123,
      timezoneOffsetMinutes: -300,
    });
    expect(commit.message).toBe('Merge branch feature\n\nBody line.\n');
    expect(commit.signed).toBe(false);
  });

  it('reads a root commit with a multi-line signature header', () => {
    const bytes = Buffer.from(
      `tree ${TREE}\n` +
        'author A <a@x> 1 +0000\ncommitter A <a@x> 1 +0000\n' +
        'gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n' +
        '\nsigned\n',
    );
    const commit = parseCommit(bytes);
    expect(commit.parents).toEqual([]);
    expect(commit.signed).toBe(true);
    expect(commit.message).toBe('signed\n');
    expect(commit.committer.name).toBe('A');
  });

  it('decodes the message in the declared encoding', () => {
    const head = Buffer.from(
      `tree ${TREE}\nauthor A <a@x> 1 +0000\ncommitter A <a@x> 1 +0000\nencoding ISO-8859-1\n\n`,
    );
    const message = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]); // "café\n" in Latin-1
    expect(parseCommit(Buffer.concat([head, message])).message).toBe('café\n');
  });

  it('keeps UTF-8 names and an empty message', () => {
    const bytes = Buffer.from(
      `tree ${TREE}\nauthor Zoë Ünal <z@x> 5 +0000\ncommitter Zoë Ünal <z@x> 5 +0000\n\n`,
    );
    const commit = parseCommit(bytes);
    expect(commit.author.name).toBe('Zoë Ünal');
    expect(commit.message).toBe('');
  });

  it('tolerates odd identities found in old repositories', () => {
    const bytes = Buffer.from(`tree ${TREE}\nauthor <> 0 +0000\ncommitter nobody\n\nx`);
    const commit = parseCommit(bytes);
    expect(commit.author).toMatchObject({ name: '', email: '', timestamp: 0 });
    expect(commit.committer).toMatchObject({ name: 'nobody', email: '', timezone: '+0000' });
  });

  it('refuses bytes that are not a commit', () => {
    expect(() => parseCommit(Buffer.from('hello\n\nworld'))).toThrow(/malformed commit/);
  });
});
