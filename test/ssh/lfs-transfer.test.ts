/**
 * Git LFS over SSH alone (`git-lfs-transfer`): Debian's git-lfs against a server whose SSH edge
 * knows no base URL, so `git-lfs-authenticate` cannot answer and every object and lock goes over
 * the pkt-line protocol. Then the protocol spoken by hand: version first, refusals that keep the
 * session in step, and framing that breaks it answered with a status, never a crash.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodePktLines, encodePktLine } from '../../src/git/pkt-line.ts';
import { filesUnder, lfsWorkTree, oidOf } from '../lfs/lfs-client.ts';
import { useLfsSshWorld } from './lfs-ssh-world.ts';
import type { KeyPair } from './ssh-support.ts';

const world = useLfsSshWorld({ pureSsh: true });
const { git, kiln, owner, keys, url, as } = world;

/** Packets of a request: text lines, `flush` and `delim` by name. */
function packets(...parts: (string | Buffer)[]): Buffer {
  return Buffer.concat(
    parts.map((part) => {
      if (part === 'flush') return Buffer.from('0000');
      if (part === 'delim') return Buffer.from('0001');
      return encodePktLine(typeof part === 'string' ? `${part}\n` : part);
    }),
  );
}

/** The answer of a session as lines: text, `flush`, `delim`. */
function answerOf(stdout: Buffer): string[] {
  return decodePktLines(stdout).map((packet) =>
    packet.kind === 'data' ? packet.payload.toString('utf8').replace(/\n$/, '') : packet.kind,
  );
}

const HELLO = ['version=1', 'locking', 'flush', 'status 200', 'flush'];

/** Runs `git-lfs-transfer` on the owner's repository `repo` with `input`, as `key`. */
const session = (key: KeyPair, repo: string, operation: string, input: Buffer) =>
  world.exec(key, `git-lfs-transfer ${owner().user.handle}/${repo}.git ${operation}`, input);

describe('git lfs over ssh:// with git-lfs-transfer only', () => {
  const content = randomBytes(3 * 1024 * 1024 + 11);

  it('pushes a multi-megabyte object and smudges it back in a reader’s clone', async () => {
    const dir = await lfsWorkTree(git(), url('art'));
    await git().commit(dir, { 'big.bin': content }, 'add a large file');
    await git().ok(['push', '-q', 'origin', 'main'], { cwd: dir, ...as(keys.owner) });

    const oid = oidOf(content);
    const stored = path.join(kiln().app.dataDir, 'lfs', oid.slice(0, 2), oid.slice(2, 4), oid);
    expect((await readFile(stored)).equals(content)).toBe(true);

    const clone = await git().clone(url('art'), [], as(keys.reader));
    expect((await readFile(path.join(clone, 'big.bin'))).equals(content)).toBe(true);
  });

  it('refuses a reader’s upload and keeps nothing of it', async () => {
    const clone = await git().clone(url('art'), [], as(keys.reader));
    const theirs = randomBytes(5000);
    await git().commit(clone, { 'theirs.bin': theirs });
    const refused = await git().run(['push', 'origin', 'main'], { cwd: clone, ...as(keys.reader) });
    expect(refused.code).not.toBe(0);
    const stored = await filesUnder(path.join(kiln().app.dataDir, 'lfs'));
    expect(stored.some((file) => file.endsWith(oidOf(theirs)))).toBe(false);
  });

  it('locks, lists and unlocks over the same protocol', async () => {
    const clone = await git().clone(url('art'), [], as(keys.owner));
    const lfs = (key: KeyPair, args: string[]) =>
      git().run(['lfs', ...args], { cwd: clone, ...as(key) });
    const locked = await lfs(keys.owner, ['lock', 'big.bin']);
    expect(locked.code, locked.stderr).toBe(0);
    const listed = await lfs(keys.reader, ['locks']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('big.bin');
    expect(listed.stdout).toContain(owner().user.handle);
    expect((await lfs(keys.reader, ['lock', 'other.bin'])).code).not.toBe(0);
    const unlocked = await lfs(keys.owner, ['unlock', 'big.bin']);
    expect(unlocked.code, unlocked.stderr).toBe(0);
    expect((await lfs(keys.owner, ['locks'])).stdout).not.toContain('big.bin');
  });

  it('answers a private repository to a stranger exactly as a missing one', async () => {
    const input = packets('version 1', 'flush');
    const hidden = await session(keys.stranger, 'art', 'download', input);
    const missing = await session(keys.stranger, 'nothing-here', 'download', input);
    expect(hidden.code).toBe(1);
    expect(hidden.stdout.length).toBe(0);
    expect(hidden.stderr.replace('art', 'X')).toBe(missing.stderr.replace('nothing-here', 'X'));
    const deployElsewhere = await session(keys.deploy, 'art', 'download', input);
    expect(deployElsewhere.stderr).toMatch(/^Kiln: repository does not exist/);
  });
});

describe('the git-lfs-transfer protocol', () => {
  it('negotiates version 1, answers a batch and quits', async () => {
    const known = oidOf(Buffer.from('never pushed'));
    const answered = await session(
      keys.reader,
      'art',
      'download',
      packets(
        'version 1',
        'flush',
        'batch',
        'transfer=ssh',
        'hash-algo=sha256',
        'delim',
        `${known} 12`,
        'flush',
        'quit',
        'flush',
      ),
    );
    expect(answered.code, answered.stderr).toBe(0);
    expect(answerOf(answered.stdout)).toEqual([
      ...HELLO,
      'status 200',
      'hash-algo=sha256',
      'delim',
      `${known} 12 noop`,
      'flush',
      'status 200',
      'flush',
    ]);
  });

  it('refuses commands before the version, and a refused upload stays in step', async () => {
    const oid = oidOf(Buffer.from('hello'));
    const answered = await session(
      keys.reader,
      'art',
      'upload',
      packets(
        'batch',
        'delim',
        'flush',
        'version 1',
        'flush',
        `put-object ${oid}`,
        'size=5',
        'delim',
        Buffer.from('hello'),
        'flush',
        'list-lock',
        'flush',
        'quit',
        'flush',
      ),
    );
    expect(answered.code, answered.stderr).toBe(0);
    const answer = answerOf(answered.stdout);
    expect(answer.slice(0, 3)).toEqual(['version=1', 'locking', 'flush']);
    expect(answer.slice(3, 7)).toEqual([
      'status 400',
      'delim',
      'Negotiate the version first.',
      'flush',
    ]);
    expect(answer.slice(7, 9)).toEqual(['status 200', 'flush']);
    // A reader may not upload: 403, then the next command is read where it starts.
    expect(answer[9]).toBe('status 403');
    expect(answer.slice(answer.indexOf('status 403') + 4, -2)).toEqual([
      'status 200',
      'delim',
      'flush',
    ]);
  });

  it('answers broken framing with an error status and ends, whatever the bytes', async () => {
    const broken = await session(
      keys.owner,
      'art',
      'download',
      Buffer.concat([packets('version 1', 'flush'), Buffer.from('zzzz')]),
    );
    expect(broken.code).toBe(1);
    expect(answerOf(broken.stdout).slice(-4)).toEqual([
      'status 400',
      'delim',
      'malformed pkt-line length',
      'flush',
    ]);
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), async (bytes) => {
        const input = Buffer.concat([packets('version 1', 'flush'), Buffer.from(bytes)]);
        const answered = await session(keys.owner, 'art', 'upload', input);
        expect([0, 1]).toContain(answered.code);
        expect(answerOf(answered.stdout).slice(0, 5)).toEqual(HELLO);
      }),
      { numRuns: 12 },
    );
    // The server still serves.
    const after = await session(keys.owner, 'art', 'download', packets('version 1', 'flush'));
    expect(after.code).toBe(0);
  });
});
