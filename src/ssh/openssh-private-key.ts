import { generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const makePair = promisify(generateKeyPair);

/** The host key types Kiln makes, by the names OpenSSH gives them. */
export type HostKeyType = 'ed25519' | 'rsa';

/** A length-prefixed string of the SSH wire format (RFC 4251 §5). */
function sshString(bytes: Buffer | string): Buffer {
  const body = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length);
  return Buffer.concat([length, body]);
}

/** A non-negative multiple-precision integer (RFC 4251 §5) from its big-endian magnitude. */
function sshMpint(magnitude: Buffer): Buffer {
  let start = 0;
  while (start < magnitude.length && magnitude[start] === 0) start += 1;
  const digits = magnitude.subarray(start);
  // A set top bit would read as negative: a zero byte in front keeps it positive.
  const positive = (digits[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), digits]) : digits;
  return sshString(positive);
}

const fromJwk = (value: string | undefined): Buffer => Buffer.from(value ?? '', 'base64url');

/** A new key's public blob and the private fields OpenSSH stores after its type. */
async function makeKey(type: HostKeyType): Promise<{ publicBlob: Buffer; privateFields: Buffer }> {
  if (type === 'ed25519') {
    const jwk = (await makePair('ed25519')).privateKey.export({ format: 'jwk' });
    const publicKey = fromJwk(jwk.x);
    const name = sshString('ssh-ed25519');
    return {
      publicBlob: Buffer.concat([name, sshString(publicKey)]),
      // OpenSSH keeps the 32-byte seed followed by the public key.
      privateFields: Buffer.concat([
        name,
        sshString(publicKey),
        sshString(Buffer.concat([fromJwk(jwk.d), publicKey])),
      ]),
    };
  }
  // Made on the thread pool: 3072 bits take long enough to be felt by requests being served.
  const pair = await makePair('rsa', { modulusLength: 3072 });
  const jwk = pair.privateKey.export({ format: 'jwk' });
  const name = sshString('ssh-rsa');
  const mpints = (...fields: Array<string | undefined>) => fields.map((f) => sshMpint(fromJwk(f)));
  return {
    publicBlob: Buffer.concat([name, ...mpints(jwk.e, jwk.n)]),
    // OpenSSH's order: n, e, d, the inverse of q mod p, then p and q.
    privateFields: Buffer.concat([name, ...mpints(jwk.n, jwk.e, jwk.d, jwk.qi, jwk.p, jwk.q)]),
  };
}

/**
 * A new private key of `type` in OpenSSH's own unencrypted format (`-----BEGIN OPENSSH PRIVATE
 * KEY-----`, as `ssh-keygen` writes it and ssh2 reads it), made with `node:crypto` alone, so
 * that making the host keys on a first start does not load the SSH library (it loads with the
 * first connection). RSA keys have 3072 bits.
 */
export async function makeOpensshPrivateKey(type: HostKeyType): Promise<string> {
  const { publicBlob, privateFields } = await makeKey(type);
  // Two equal check words (random, as ssh-keygen makes them), the key, an empty comment, then
  // padding 1, 2, 3… to the cipher's block size (8 for "none").
  const check = randomBytes(4);
  const unpadded = Buffer.concat([check, check, privateFields, sshString('')]);
  const padding = Buffer.from(
    Array.from({ length: (8 - (unpadded.length % 8)) % 8 }, (_, index) => index + 1),
  );
  const body = Buffer.concat([
    Buffer.from('openssh-key-v1\0', 'latin1'),
    sshString('none'),
    sshString('none'),
    sshString(''),
    Buffer.from([0, 0, 0, 1]),
    sshString(publicBlob),
    sshString(Buffer.concat([unpadded, padding])),
  ]);
  const lines = body.toString('base64').match(/.{1,70}/g) ?? [];
  return `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines.join('\n')}\n-----END OPENSSH PRIVATE KEY-----\n`;
}
