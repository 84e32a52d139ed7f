import { createPrivateKey, type JsonWebKey, type KeyObject } from 'node:crypto';

/**
 * Why a host key file cannot be served: the message names the problem, never the key's bytes.
 */
export class UnusableHostKeyError extends Error {}

/** A cursor over the SSH wire format (RFC 4251 §5) that refuses to read past the end. */
function wireReader(bytes: Buffer) {
  let at = 0;
  const take = (length: number): Buffer => {
    if (length < 0 || at + length > bytes.length) throw new UnusableHostKeyError('it is cut short');
    const out = bytes.subarray(at, at + length);
    at += length;
    return out;
  };
  const uint32 = (): number => take(4).readUInt32BE(0);
  const rest = (): Buffer => take(bytes.length - at);
  const string = (): Buffer => take(uint32());
  const text = (): string => string().toString('latin1');
  return { take, uint32, string, text, rest };
}

const b64url = (bytes: Buffer): string => bytes.toString('base64url');
/** An mpint's magnitude without the zero byte that keeps a set top bit positive. */
const magnitude = (mpint: Buffer): Buffer => (mpint[0] === 0 ? mpint.subarray(1) : mpint);
const bigint = (bytes: Buffer): bigint => BigInt(`0x${bytes.toString('hex') || '0'}`);
const unbig = (value: bigint): Buffer => {
  const hex = value.toString(16);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
};

/** Builds the key from a JWK, so node:crypto checks its numbers as OpenSSL would. */
function keyFromJwk(jwk: JsonWebKey): KeyObject {
  try {
    return createPrivateKey({ key: jwk, format: 'jwk' });
  } catch {
    throw new UnusableHostKeyError('its numbers do not make a private key');
  }
}

type WireReader = ReturnType<typeof wireReader>;

/** Reads one private key of OpenSSH's format after its type name, and checks it is whole. */
function checkPrivateFields(type: string, read: WireReader): void {
  if (type === 'ssh-ed25519') {
    const publicKey = read.string();
    const secret = read.string();
    if (publicKey.length !== 32 || secret.length !== 64) {
      throw new UnusableHostKeyError('its ed25519 key has the wrong length');
    }
    const derived = keyFromJwk({
      kty: 'OKP',
      crv: 'Ed25519',
      d: b64url(secret.subarray(0, 32)),
      x: b64url(publicKey),
    }).export({ format: 'jwk' });
    if (derived.x !== b64url(publicKey) || !secret.subarray(32).equals(publicKey)) {
      throw new UnusableHostKeyError('its ed25519 public key does not match its private key');
    }
    return;
  }
  if (type === 'ssh-rsa') {
    const [n, e, d, qi, p, q] = Array.from({ length: 6 }, () => magnitude(read.string()));
    if (!n || !e || !d || !qi || !p || !q) throw new UnusableHostKeyError('it is cut short');
    const [bp, bq, bd] = [bigint(p), bigint(q), bigint(d)];
    if (bp < 2n || bq < 2n || bp * bq !== bigint(n)) {
      throw new UnusableHostKeyError('its RSA primes do not make its modulus');
    }
    keyFromJwk({
      kty: 'RSA',
      ...Object.fromEntries(Object.entries({ n, e, d, p, q, qi }).map(([k, v]) => [k, b64url(v)])),
      dp: b64url(unbig(bd % (bp - 1n))),
      dq: b64url(unbig(bd % (bq - 1n))),
    });
    return;
  }
  throw new UnusableHostKeyError(`its key type ${JSON.stringify(type)} is not served`);
}

const OPENSSH =
  /^-----BEGIN OPENSSH PRIVATE KEY-----\r?\n([A-Za-z0-9+/=\r\n]+)-----END OPENSSH PRIVATE KEY-----\s*$/;
const MAGIC = Buffer.from('openssh-key-v1\0', 'latin1');

/** OpenSSH's own format (`ssh-keygen`'s default, and what Kiln writes). */
function checkOpensshKey(body: string): string {
  const bytes = Buffer.from(body.replace(/\s+/g, ''), 'base64');
  const outer = wireReader(bytes);
  if (!outer.take(MAGIC.length).equals(MAGIC)) {
    throw new UnusableHostKeyError('it is not an OpenSSH private key');
  }
  const [cipher, kdf, kdfOptions] = [outer.text(), outer.text(), outer.string()];
  if (cipher !== 'none' || kdf !== 'none' || kdfOptions.length > 0) {
    throw new UnusableHostKeyError('it is encrypted with a passphrase, which a server cannot type');
  }
  if (outer.uint32() !== 1) throw new UnusableHostKeyError('it does not hold exactly one key');
  const publicType = wireReader(outer.string()).text();
  const section = outer.string();
  if (outer.rest().length > 0) throw new UnusableHostKeyError('it has bytes after its key');
  const inner = wireReader(section);
  const [check, again] = [inner.uint32(), inner.uint32()];
  if (check !== again) {
    throw new UnusableHostKeyError('its check words differ (a damaged file)');
  }
  const type = inner.text();
  if (type !== publicType) throw new UnusableHostKeyError('its public and private keys differ');
  checkPrivateFields(type, inner);
  inner.string();
  // Then padding 1, 2, 3… to the block size: anything else is a file damaged after the key.
  const padding = inner.rest();
  const padded = section.length % 8 === 0 && padding.length < 8;
  if (!padded || padding.some((byte, index) => byte !== index + 1)) {
    throw new UnusableHostKeyError('its padding is wrong (a damaged file)');
  }
  return type;
}

/** The older PEM format ssh-keygen writes for RSA with `-m PEM`, which node:crypto reads. */
function checkPemKey(text: string): string {
  if (/Proc-Type:\s*4,ENCRYPTED/.test(text)) {
    throw new UnusableHostKeyError('it is encrypted with a passphrase, which a server cannot type');
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: text, format: 'pem' });
  } catch {
    throw new UnusableHostKeyError('it is not a private key');
  }
  if (key.asymmetricKeyType !== 'rsa') throw new UnusableHostKeyError('it is not an RSA key');
  return 'ssh-rsa';
}

/**
 * Checks, with node:crypto alone, that `file` holds one unencrypted private key of `type` (in
 * OpenSSH's format, or RSA PEM), so that a damaged host key stops `kiln serve` at start with one
 * line rather than failing each connection later, when the SSH library that would have read it
 * is loaded. Throws UnusableHostKeyError saying why.
 */
export function checkHostKey(file: Buffer, type: 'ed25519' | 'rsa'): void {
  const text = file.toString('latin1');
  const openssh = OPENSSH.exec(text);
  let found: string;
  if (openssh?.[1]) found = checkOpensshKey(openssh[1]);
  else if (/^-----BEGIN RSA PRIVATE KEY-----\r?\n/.test(text)) found = checkPemKey(text);
  else throw new UnusableHostKeyError('it is not a private key in OpenSSH or PEM format');
  if (found !== `ssh-${type}`) throw new UnusableHostKeyError(`it is not an ${type} key`);
}
