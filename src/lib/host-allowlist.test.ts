import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressKind, HostAllowlist } from './host-allowlist.ts';

const ipv4 = fc
  .tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255))
  .map((parts) => parts.join('.'));

function hexWords(address: string): string {
  const [a, b, c, d] = address.split('.').map(Number) as [number, number, number, number];
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

describe('addressKind', () => {
  it('names loopback, private and reserved ranges', () => {
    expect(addressKind('127.0.0.1')).toBe('loopback');
    expect(addressKind('::1')).toBe('loopback');
    for (const address of [
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '192.0.2.10',
      '198.18.0.1',
      '203.0.113.9',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      'fd00::1',
      'fe80::1',
      'ff02::1',
      '2001:db8::1',
      '2002:7f00:1::',
    ]) {
      expect(addressKind(address), address).toBe('private');
    }
    expect(addressKind('93.184.216.34')).toBe('external');
    expect(addressKind('2606:4700::1111')).toBe('external');
  });

  it('judges an IPv4 address embedded in IPv6 as the address itself, in either spelling', () => {
    fc.assert(
      fc.property(ipv4, (address) => {
        const kind = addressKind(address);
        expect(addressKind(`::ffff:${address}`)).toBe(kind);
        expect(addressKind(`::ffff:${hexWords(address)}`)).toBe(kind);
        expect(addressKind(`64:ff9b::${hexWords(address)}`)).toBe(kind);
      }),
    );
  });
});

describe('HostAllowlist', () => {
  it('with `external`, admits no address that is loopback or private in any spelling', () => {
    const external = new HostAllowlist(['external']);
    fc.assert(
      fc.property(ipv4, (address) => {
        const admitted = addressKind(address) === 'external';
        for (const spelling of [address, `::ffff:${address}`, `::ffff:${hexWords(address)}`]) {
          expect(external.admitsAddress(spelling)).toBe(admitted);
        }
      }),
    );
  });

  it('admits names only by a name rule, and everything with `*`', () => {
    const list = new HostAllowlist(['*.example.com', '10.0.0.0/8']);
    expect(list.admitsName('hooks.example.com')).toBe(true);
    expect(list.admitsName('example.org')).toBe(false);
    expect(list.admitsAddress('10.2.3.4')).toBe(true);
    expect(list.admitsAddress('192.168.0.1')).toBe(false);
    expect(new HostAllowlist(['*']).admitsAddress('127.0.0.1')).toBe(true);
  });
});
