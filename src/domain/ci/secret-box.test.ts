import { describe, expect, it } from 'vitest';
import { deriveSecretKey, openSecret, SecretBoxError, sealSecret } from './secret-box.ts';

const key = deriveSecretKey('a configured secret key of some length');
const context = 'repo-1/DEPLOY_KEY';

/** Flips one bit of the base64url part at `index` of a sealed value. */
function flip(sealed: string, index: number): string {
  const parts = sealed.split(':');
  const bytes = Buffer.from(parts[index] ?? '', 'base64url');
  bytes[0] = (bytes[0] ?? 0) ^ 1;
  parts[index] = bytes.toString('base64url');
  return parts.join(':');
}

describe('secret box (AES-256-GCM)', () => {
  it('round-trips text, including the empty string and non-ASCII', () => {
    for (const plaintext of ['hunter2', '', 'ключ 🔑', 'x'.repeat(10_000)]) {
      expect(openSecret(key, sealSecret(key, plaintext, context), context)).toBe(plaintext);
    }
  });

  it('stores version, nonce, ciphertext and tag, never the plaintext', () => {
    const sealed = sealSecret(key, 'hunter2', context);
    const [version, nonce, , tag] = sealed.split(':');
    expect(version).toBe('v1');
    expect(Buffer.from(nonce ?? '', 'base64url')).toHaveLength(12);
    expect(Buffer.from(tag ?? '', 'base64url')).toHaveLength(16);
    expect(sealed).not.toContain('hunter2');
  });

  it('uses a fresh nonce for every value', () => {
    expect(sealSecret(key, 'same', context)).not.toBe(sealSecret(key, 'same', context));
  });

  it('detects a changed nonce, ciphertext or tag', () => {
    const sealed = sealSecret(key, 'hunter2', context);
    for (const index of [1, 2, 3]) {
      expect(() => openSecret(key, flip(sealed, index), context)).toThrow(SecretBoxError);
    }
  });

  it('refuses another key, another context and malformed input', () => {
    const sealed = sealSecret(key, 'hunter2', context);
    expect(() =>
      openSecret(deriveSecretKey('another secret key entirely'), sealed, context),
    ).toThrow(SecretBoxError);
    expect(() => openSecret(key, sealed, 'repo-2/DEPLOY_KEY')).toThrow(SecretBoxError);
    for (const bad of ['', 'v1', 'v2:a:b:c', `${sealed}:extra`, 'v1:AAAA:AAAA:AAAA']) {
      expect(() => openSecret(key, bad, context)).toThrow(SecretBoxError);
    }
  });

  it('derives a 32-byte key that depends on the configured text', () => {
    expect(key).toHaveLength(32);
    expect(deriveSecretKey('a configured secret key of some length')).toEqual(key);
    expect(deriveSecretKey('a configured secret key of some lengtH')).not.toEqual(key);
  });
});
