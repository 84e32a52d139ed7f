import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressKind, isLoopbackUrl } from './host-allowlist.ts';

const ipv4 = fc
  .tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255))
  .map((parts) => parts.join('.'));
const port = fc.integer({ min: 1, max: 65535 });

/** Federation reaches loopback peers only for an instance whose own base URL is loopback. */
describe('isLoopbackUrl', () => {
  it('holds for localhost, 127.0.0.0/8 and ::1, whatever the port and scheme', () => {
    fc.assert(
      fc.property(fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)), port, (parts, p) => {
        expect(isLoopbackUrl(new URL(`http://127.${parts.join('.')}:${p}`))).toBe(true);
      }),
    );
    for (const url of ['http://localhost:3000', 'https://LOCALHOST', 'http://[::1]:3000/x']) {
      expect(isLoopbackUrl(new URL(url)), url).toBe(true);
    }
  });

  it('fails for every address that is not loopback', () => {
    fc.assert(
      fc.property(ipv4, port, (address, p) => {
        const url = new URL(`http://${address}:${p}`);
        expect(isLoopbackUrl(url)).toBe(addressKind(url.hostname) === 'loopback');
      }),
    );
  });

  it('fails for names, even ones that look like loopback or end in it', () => {
    const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/);
    fc.assert(
      fc.property(fc.array(label, { minLength: 1, maxLength: 3 }), (labels) => {
        for (const host of [
          `${labels.join('.')}.example`,
          `127.0.0.1.${labels.join('.')}.example`,
          `localhost.${labels.join('.')}`,
        ]) {
          expect(isLoopbackUrl(new URL(`https://${host}/`)), host).toBe(false);
        }
      }),
    );
    expect(isLoopbackUrl(new URL('http://[::ffff:7f00:1]/'))).toBe(true);
    expect(isLoopbackUrl(new URL('http://[2001:db8::1]/'))).toBe(false);
  });
});
