import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isKeyProblem, parseSshPublicKey, sshFingerprint } from './ssh-public-key.ts';

// An ed25519 key and its fingerprint as `ssh-keygen -l` prints them.
const ED25519 =
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINup1nqabi/80Aa4lokVramCr6f/ShLHaxObDVG6PeV4 someone@host';

/** An RSA public key of `bits` in OpenSSH's one-line form, built from its numbers. */
function opensshRsa(bits: number): string {
  const jwk = generateKeyPairSync('rsa', { modulusLength: bits }).publicKey.export({
    format: 'jwk',
  });
  const field = (bytes: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    return Buffer.concat([length, bytes]);
  };
  const mpint = (base64url: string) => {
    const raw = Buffer.from(base64url, 'base64url');
    return field((raw[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.alloc(1), raw]) : raw);
  };
  const blob = Buffer.concat([
    field(Buffer.from('ssh-rsa')),
    mpint(jwk.e ?? ''),
    mpint(jwk.n ?? ''),
  ]);
  return `ssh-rsa ${blob.toString('base64')} made@test`;
}

describe('parseSshPublicKey', () => {
  it('reads an OpenSSH line, drops the comment and gives OpenSSH’s fingerprint', () => {
    const key = parseSshPublicKey(ED25519);
    if (isKeyProblem(key)) throw new Error(key.problem);
    expect(key.type).toBe('ssh-ed25519');
    expect(key.text).toBe(ED25519.split(' ').slice(0, 2).join(' '));
    expect(key.fingerprint).toBe(sshFingerprint(key.blob));
    expect(key.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
  });

  it('refuses short RSA keys and private keys', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const pem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    expect(parseSshPublicKey(pem)).toEqual({
      problem: 'this is a private key: paste the public one (the .pub file)',
    });
    const publicPem = opensshRsa(1024);
    expect(parseSshPublicKey(publicPem)).toEqual({
      problem: 'RSA keys need at least 2048 bits; this one has 1024',
    });
    const accepted = parseSshPublicKey(opensshRsa(2048));
    expect(isKeyProblem(accepted) ? accepted.problem : accepted.bits).toBe(2048);
  });

  it('answers anything at all with a key or a problem, never an exception', () => {
    const keyish = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.base64String({ maxLength: 400 }).map((text) => `ssh-ed25519 ${text}`),
      fc.base64String({ maxLength: 400 }).map((text) => `ssh-rsa ${text} c`),
      fc
        .uint8Array({ maxLength: 200 })
        .map((bytes) => `ecdsa-sha2-nistp256 ${Buffer.from(bytes).toString('base64')}`),
    );
    fc.assert(
      fc.property(keyish, (text) => {
        const result = parseSshPublicKey(text);
        expect(isKeyProblem(result) || result.fingerprint.startsWith('SHA256:')).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('does not read text beyond its bound', () => {
    expect(parseSshPublicKey(`ssh-ed25519 ${'A'.repeat(100_000)}`)).toEqual({
      problem: 'the key is too long',
    });
  });
});
