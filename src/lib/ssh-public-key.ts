import { createHash, createPublicKey } from 'node:crypto';
import { ssh2 } from './ssh2-package.ts';

/** The longest key text read: an RSA key of 16384 bits is under 3 KB in OpenSSH's form. */
export const MAX_PUBLIC_KEY_TEXT = 16 * 1024;

/** RSA keys shorter than this are refused: 1024-bit moduli are within reach of factoring. */
export const MIN_RSA_BITS = 2048;

/** A public key as OpenSSH writes it in `authorized_keys`, comment left out. */
export type SshPublicKey = {
  /** `ssh-ed25519`, `ecdsa-sha2-nistp256`, `ssh-rsa`… */
  readonly type: string;
  /** The wire blob the key is identified by. */
  readonly blob: Buffer;
  /** `TYPE BASE64`. */
  readonly text: string;
  /** OpenSSH's `SHA256:…` (unpadded base64 of the blob's SHA-256). */
  readonly fingerprint: string;
  /** The RSA modulus length; undefined for other types. */
  readonly bits: number | undefined;
};

/** Why a key text is not accepted, in words for the person who pasted it. */
export type SshKeyProblem = { readonly problem: string };

/** OpenSSH's fingerprint of a key blob: `SHA256:` and the unpadded base64 of its digest. */
export function sshFingerprint(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/**
 * Reads one public key (OpenSSH's one-line form, or PEM) and checks it is one Kiln accepts:
 * ed25519, ECDSA or RSA of at least 2048 bits, never DSA, never a private key. The text is
 * bounded before any parsing, so a pasted megabyte costs nothing.
 */
export function parseSshPublicKey(text: string): SshPublicKey | SshKeyProblem {
  const trimmed = text.trim();
  if (trimmed === '') return { problem: 'the key is empty' };
  if (trimmed.length > MAX_PUBLIC_KEY_TEXT) return { problem: 'the key is too long' };
  if (/PRIVATE KEY/.test(trimmed)) {
    return { problem: 'this is a private key: paste the public one (the .pub file)' };
  }
  // One key only: authorized_keys lines after the first would be silently dropped otherwise.
  if (!trimmed.startsWith('-----') && /[\r\n]/.test(trimmed)) {
    return { problem: 'give one key at a time' };
  }
  const parsed = ssh2().utils.parseKey(trimmed);
  if (parsed instanceof Error || Array.isArray(parsed)) {
    return { problem: 'the key is not a valid SSH public key' };
  }
  if (parsed.isPrivateKey()) {
    return { problem: 'this is a private key: paste the public one (the .pub file)' };
  }
  const type = parsed.type;
  if (type === 'ssh-dss') return { problem: 'DSA keys are not accepted: use ed25519' };
  const blob = parsed.getPublicSSH();
  let bits: number | undefined;
  if (type === 'ssh-rsa') {
    bits = createPublicKey(parsed.getPublicPEM()).asymmetricKeyDetails?.modulusLength ?? 0;
    if (bits < MIN_RSA_BITS) {
      return { problem: `RSA keys need at least ${MIN_RSA_BITS} bits; this one has ${bits}` };
    }
  }
  return {
    type,
    blob,
    text: `${type} ${blob.toString('base64')}`,
    fingerprint: sshFingerprint(blob),
    bits,
  };
}

/** Whether `parseSshPublicKey` found a problem. */
export function isKeyProblem(result: SshPublicKey | SshKeyProblem): result is SshKeyProblem {
  return 'problem' in result;
}
