import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pinCloneAddress } from './clone-address.ts';
import { OutboundError } from './outbound-request.ts';

const octet = fc.integer({ min: 0, max: 255 });
/** Loopback, private, link-local and unspecified IPv4 and IPv6 addresses, as URL hosts. */
const internal = fc.oneof(
  fc.tuple(octet, octet, octet).map(([b, c, d]) => `127.${b}.${c}.${d}`),
  fc.tuple(octet, octet, octet).map(([b, c, d]) => `10.${b}.${c}.${d}`),
  fc.tuple(octet, octet).map(([c, d]) => `192.168.${c}.${d}`),
  fc.tuple(fc.integer({ min: 16, max: 31 }), octet, octet).map(([b, c, d]) => `172.${b}.${c}.${d}`),
  fc.tuple(octet, octet).map(([c, d]) => `169.254.${c}.${d}`),
  fc.constantFrom('0.0.0.0', '[::1]', '[fc00::1]', '[fe80::1]', '[::ffff:127.0.0.1]', 'localhost'),
);

describe('pinCloneAddress', () => {
  it('refuses clone addresses inside the network unless private addresses are allowed', async () => {
    await fc.assert(
      fc.asyncProperty(internal, async (host) => {
        const url = `https://${host}/ada/tool.git`;
        await expect(pinCloneAddress(url, false)).rejects.toThrow(OutboundError);
        expect((await pinCloneAddress(url, true)).address).toBeTruthy();
      }),
      { numRuns: 80 },
    );
  });

  it('pins a public address literal as it is, with the scheme’s port', async () => {
    expect(await pinCloneAddress('https://93.184.215.14/x.git', false)).toEqual({
      host: '93.184.215.14',
      port: 443,
      address: '93.184.215.14',
    });
  });
});
