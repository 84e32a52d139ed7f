import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const FORMAT_VERSION = 'v1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** Fixed HKDF salt and info: they separate this key from any other use of the same secret. */
const HKDF_SALT = 'kiln';
const HKDF_INFO = 'kiln ci secrets v1';

/** A sealed value that fails authentication: tampered, truncated, or sealed under another key. */
export class SecretBoxError extends Error {}

/**
 * The AES-256 key for CI secrets, derived from `SERVICE_SECRET_KEY` with HKDF-SHA256 so the
 * configured text (any length) never serves as a key directly. Pure.
 */
export function deriveSecretKey(secretKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secretKey, HKDF_SALT, HKDF_INFO, 32));
}

/**
 * Encrypts `plaintext` with AES-256-GCM under a fresh random nonce. `context` (say the
 * repository id and the secret's name) is authenticated but not stored, so a sealed value copied
 * into another row no longer opens. Result: `v1:<nonce>:<ciphertext>:<tag>`, parts base64url.
 *
 * @example
 * const sealed = sealSecret(key, 'hunter2', `${repoId}/DEPLOY_KEY`);
 * openSecret(key, sealed, `${repoId}/DEPLOY_KEY`) // 'hunter2'
 */
export function sealSecret(key: Buffer, plaintext: string, context: string): string {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [FORMAT_VERSION, nonce, ciphertext, tag]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join(':');
}

/** Decrypts what `sealSecret` made; throws `SecretBoxError` unless it authenticates. */
export function openSecret(key: Buffer, sealed: string, context: string): string {
  const [version, nonceText, ciphertextText, tagText, ...rest] = sealed.split(':');
  if (
    version !== FORMAT_VERSION ||
    nonceText === undefined ||
    ciphertextText === undefined ||
    tagText === undefined ||
    rest.length > 0
  ) {
    throw new SecretBoxError('not a sealed secret of a known format');
  }
  const nonce = Buffer.from(nonceText, 'base64url');
  const tag = Buffer.from(tagText, 'base64url');
  if (nonce.length !== NONCE_BYTES || tag.length !== TAG_BYTES) {
    throw new SecretBoxError('sealed secret has a malformed nonce or tag');
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(tag);
    const plaintext = Buffer.concat([
      decipher.update(Buffer.from(ciphertextText, 'base64url')),
      decipher.final(),
    ]);
    return plaintext.toString('utf8');
  } catch (error) {
    throw new SecretBoxError('sealed secret does not authenticate', { cause: error });
  }
}
