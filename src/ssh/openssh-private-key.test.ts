import { describe, expect, it } from 'vitest';
import { ssh2 } from '../lib/ssh2-package.ts';
import { makeOpensshPrivateKey } from './openssh-private-key.ts';

/** The one key ssh2 reads out of `text`, or the error it gives. */
function parse(text: string) {
  const parsed = ssh2().utils.parseKey(text);
  if (parsed instanceof Error) throw parsed;
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key) throw new Error('no key');
  return key;
}

describe('makeOpensshPrivateKey', () => {
  it.each([
    ['ed25519', 'ssh-ed25519', undefined],
    ['rsa', 'ssh-rsa', 'sha512'],
  ] as const)(
    'makes a %s key in OpenSSH’s format that signs as its public half says',
    async (type, name, hash) => {
      const text = await makeOpensshPrivateKey(type);
      expect(text).toMatch(
        /^-----BEGIN OPENSSH PRIVATE KEY-----\n([A-Za-z0-9+/=]{1,70}\n)+-----END OPENSSH PRIVATE KEY-----\n$/,
      );
      const key = parse(text);
      expect(key.type).toBe(name);
      expect(key.isPrivateKey()).toBe(true);
      // What the private half signs verifies with the public half as a client would get it.
      const published = parse(`${name} ${key.getPublicSSH().toString('base64')}`);
      const data = Buffer.from('exchange hash');
      const signature = key.sign(data, hash);
      if (signature instanceof Error) throw signature;
      expect(published.verify(data, signature, hash)).toBe(true);
      expect(published.verify(Buffer.from('another hash'), signature, hash)).toBe(false);
    },
  );

  it('makes a different key each time', async () => {
    expect(await makeOpensshPrivateKey('ed25519')).not.toBe(await makeOpensshPrivateKey('ed25519'));
  });
});
