import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ssh2 } from '../../src/lib/ssh2-package.ts';
import { checkHostKey } from '../../src/ssh/host-key-check.ts';
import { makeOpensshPrivateKey } from '../../src/ssh/openssh-private-key.ts';

const dir = mkdtempSync(join(tmpdir(), 'kiln-host-key-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A private key as `ssh-keygen` writes it with `args`. */
function keygen(name: string, args: string[]): Buffer {
  const file = join(dir, name);
  const made = spawnSync('ssh-keygen', ['-q', '-N', '', '-C', '', '-f', file, ...args]);
  expect(made.status).toBe(0);
  return readFileSync(file);
}

/** Whether ssh2, which serves the key, reads `bytes` as one private key. */
function ssh2Reads(bytes: Buffer): boolean {
  const parsed = ssh2().utils.parseKey(bytes);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  return !(key instanceof Error) && key !== undefined && key.isPrivateKey();
}

/** The armoured text of an OpenSSH key whose body is `body`. */
function armour(body: Buffer): Buffer {
  const lines = body.toString('base64').match(/.{1,70}/g) ?? [];
  return Buffer.from(
    `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines.join('\n')}\n-----END OPENSSH PRIVATE KEY-----\n`,
  );
}
const body = (key: Buffer) =>
  Buffer.from(key.toString().replace(/-----[A-Z ]+-----|\s/g, ''), 'base64');

let kilnEd25519: Buffer;
beforeAll(async () => {
  kilnEd25519 = Buffer.from(await makeOpensshPrivateKey('ed25519'));
});

describe('checkHostKey', () => {
  it('accepts the keys Kiln makes and those ssh-keygen makes', async () => {
    const keys = [
      [kilnEd25519, 'ed25519'],
      [Buffer.from(await makeOpensshPrivateKey('rsa')), 'rsa'],
      [keygen('ed25519', ['-t', 'ed25519']), 'ed25519'],
      [keygen('rsa', ['-t', 'rsa', '-b', '2048']), 'rsa'],
      [keygen('rsa-pem', ['-t', 'rsa', '-b', '2048', '-m', 'PEM']), 'rsa'],
    ] as const;
    for (const [key, type] of keys) {
      expect(() => checkHostKey(key, type)).not.toThrow();
      expect(ssh2Reads(key)).toBe(true);
    }
  });

  it('refuses keys a server cannot read, saying why', () => {
    const encrypted = join(dir, 'encrypted');
    spawnSync('ssh-keygen', ['-q', '-N', 'secret', '-t', 'ed25519', '-f', encrypted]);
    expect(() => checkHostKey(readFileSync(encrypted), 'ed25519')).toThrow(/passphrase/);
    const publicHalf = readFileSync(`${encrypted}.pub`);
    expect(() => checkHostKey(publicHalf, 'ed25519')).toThrow(/not a private key/);
    expect(() => checkHostKey(Buffer.alloc(0), 'rsa')).toThrow(/not a private key/);
    const half = kilnEd25519.subarray(0, kilnEd25519.length / 2);
    expect(() => checkHostKey(half, 'ed25519')).toThrow(/not a private key/);
    expect(() => checkHostKey(kilnEd25519, 'rsa')).toThrow(/not an rsa key/);
    const ecdsa = keygen('ecdsa', ['-t', 'ecdsa']);
    expect(() => checkHostKey(ecdsa, 'rsa')).toThrow(/"ecdsa-sha2-nistp256" is not served/);
  });

  it('refuses an ed25519 key with any byte of its key material changed', () => {
    const original = body(kilnEd25519);
    // From the two check words to the end of the 64-byte secret (after magic, cipher, kdf,
    // count, the 51-byte public blob and the private section's length).
    const start = 15 + 8 + 8 + 4 + 4 + 4 + 51 + 4;
    const end = start + 8 + 15 + 36 + 68;
    fc.assert(
      fc.property(
        fc.integer({ min: start, max: end - 1 }),
        fc.integer({ min: 1, max: 255 }),
        (at, flip) => {
          const damaged = Buffer.from(original);
          damaged[at] = (damaged[at] ?? 0) ^ flip;
          expect(() => checkHostKey(armour(damaged), 'ed25519')).toThrow();
        },
      ),
    );
  });

  it('accepts only what ssh2 reads as a private key, whatever the damage', () => {
    const original = body(kilnEd25519);
    fc.assert(
      fc.property(
        fc.nat({ max: original.length }),
        fc.uint8Array({ maxLength: 8 }),
        fc.nat({ max: 8 }),
        (at, inserted, removed) => {
          const damaged = Buffer.concat([
            original.subarray(0, at),
            inserted,
            original.subarray(at + removed),
          ]);
          let accepted = true;
          try {
            checkHostKey(armour(damaged), 'ed25519');
          } catch {
            accepted = false;
          }
          if (accepted) expect(ssh2Reads(armour(damaged))).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
