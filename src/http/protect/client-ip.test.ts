import { describe, expect, it } from 'vitest';
import { clientIp, NO_TRUSTED_PROXIES, normalizeIp, parseTrustedProxies } from './client-ip.ts';

describe('normalizeIp', () => {
  it('folds IPv4-mapped IPv6 to IPv4', () => {
    expect(normalizeIp('::ffff:1.2.3.4')).toBe('1.2.3.4');
    expect(normalizeIp('::FFFF:0102:0304')).toBe('1.2.3.4');
    expect(normalizeIp('0:0:0:0:0:ffff:1.2.3.4')).toBe('1.2.3.4');
  });

  it('canonicalises IPv6 and drops a zone id', () => {
    expect(normalizeIp('2001:DB8:0:0:0::1')).toBe('2001:db8::1');
    expect(normalizeIp('fe80::1%eth0')).toBe('fe80::1');
    expect(normalizeIp('::1')).toBe('::1');
  });

  it('rejects what is not an address', () => {
    for (const bad of ['', 'unknown', '1.2.3', '01.2.3.4', '1.2.3.4:80', '[::1]', 'localhost']) {
      expect(normalizeIp(bad)).toBeUndefined();
    }
  });
});

describe('parseTrustedProxies', () => {
  it('matches single addresses and CIDR ranges of both families', () => {
    const trusted = parseTrustedProxies(' 127.0.0.1 , ::1,10.1.0.0/16, 2001:db8:aa::/48 ');
    expect(trusted.entries).toEqual(['127.0.0.1', '::1', '10.1.0.0/16', '2001:db8:aa::/48']);
    expect(trusted.has('127.0.0.1')).toBe(true);
    expect(trusted.has('127.0.0.2')).toBe(false);
    expect(trusted.has('::1')).toBe(true);
    expect(trusted.has('0:0:0:0:0:0:0:1')).toBe(true);
    expect(trusted.has('10.1.255.7')).toBe(true);
    expect(trusted.has('10.2.0.1')).toBe(false);
    expect(trusted.has('2001:DB8:AA:1::5')).toBe(true);
    expect(trusted.has('2001:db8:ab::5')).toBe(false);
  });

  it('folds IPv4-mapped peers and entries', () => {
    expect(parseTrustedProxies('10.0.0.0/8').has('::ffff:10.9.8.7')).toBe(true);
    expect(parseTrustedProxies('::ffff:10.0.0.1').has('10.0.0.1')).toBe(true);
    const mappedRange = parseTrustedProxies('::ffff:10.0.0.0/104');
    expect(mappedRange.has('10.200.0.1')).toBe(true);
    expect(mappedRange.has('11.0.0.1')).toBe(false);
  });

  it('takes the list already split by the configuration loader', () => {
    const trusted = parseTrustedProxies(['10.0.0.0/8', ' ::1 ', '192.168.1.1,192.168.1.2']);
    expect(trusted.entries).toEqual(['10.0.0.0/8', '::1', '192.168.1.1', '192.168.1.2']);
    expect(trusted.has('192.168.1.2')).toBe(true);
    expect(() => parseTrustedProxies(['10.0.0.0/8', 'proxy'])).toThrow('"proxy"');
  });

  it('trusts nobody when empty', () => {
    expect(parseTrustedProxies('').entries).toEqual([]);
    expect(parseTrustedProxies(' , ').has('127.0.0.1')).toBe(false);
    expect(NO_TRUSTED_PROXIES.has('127.0.0.1')).toBe(false);
  });

  it('does not match garbage', () => {
    expect(parseTrustedProxies('0.0.0.0/0,::/0').has('not-an-ip')).toBe(false);
  });

  it.each([
    ['proxy.internal'],
    ['10.0.0.0/33'],
    ['::/129'],
    ['10.0.0.0/'],
    ['10.0.0.0/8/8'],
    ['10.0.0.0/-1'],
    ['10.0.0.0/255.0.0.0'],
    ['256.1.1.1'],
    ['::ffff:10.0.0.0/80'],
    ['*'],
    ['loopback'],
  ])('rejects the malformed entry %s, naming it', (bad) => {
    expect(() => parseTrustedProxies(`127.0.0.1, ${bad}`)).toThrow(`"${bad}"`);
  });
});

describe('clientIp', () => {
  const proxies = parseTrustedProxies('10.0.0.0/8, ::1');

  it('uses the socket peer when no proxy is trusted', () => {
    expect(
      clientIp({ peer: '203.0.113.9', forwardedFor: undefined, trusted: NO_TRUSTED_PROXIES }),
    ).toBe('203.0.113.9');
  });

  it('ignores X-Forwarded-For from an untrusted peer (spoofing)', () => {
    expect(
      clientIp({ peer: '203.0.113.9', forwardedFor: '1.1.1.1', trusted: NO_TRUSTED_PROXIES }),
    ).toBe('203.0.113.9');
    expect(clientIp({ peer: '203.0.113.9', forwardedFor: '10.0.0.1', trusted: proxies })).toBe(
      '203.0.113.9',
    );
  });

  it('takes the right-most address added by a trusted proxy', () => {
    expect(clientIp({ peer: '10.0.0.2', forwardedFor: '198.51.100.7', trusted: proxies })).toBe(
      '198.51.100.7',
    );
  });

  it('never reads client-written entries left of the first untrusted hop', () => {
    expect(
      clientIp({ peer: '10.0.0.2', forwardedFor: '6.6.6.6, 198.51.100.7', trusted: proxies }),
    ).toBe('198.51.100.7');
    expect(
      clientIp({ peer: '10.0.0.2', forwardedFor: 'garbage, 198.51.100.7', trusted: proxies }),
    ).toBe('198.51.100.7');
  });

  it('walks past a chain of trusted hops', () => {
    expect(
      clientIp({
        peer: '::1',
        forwardedFor: '6.6.6.6, 198.51.100.7, 10.3.3.3, 10.2.2.2',
        trusted: proxies,
      }),
    ).toBe('198.51.100.7');
  });

  it('reads repeated headers as one list', () => {
    expect(
      clientIp({ peer: '10.0.0.2', forwardedFor: ['6.6.6.6', '198.51.100.7'], trusted: proxies }),
    ).toBe('198.51.100.7');
  });

  it('stops at the last trusted hop when a trusted proxy forwards garbage', () => {
    expect(clientIp({ peer: '10.0.0.2', forwardedFor: 'unknown', trusted: proxies })).toBe(
      '10.0.0.2',
    );
    expect(
      clientIp({ peer: '10.0.0.2', forwardedFor: '1.1.1.1, _hidden, 10.0.0.3', trusted: proxies }),
    ).toBe('10.0.0.3');
  });

  it('uses the trusted peer itself when it sends no header', () => {
    expect(clientIp({ peer: '10.0.0.2', forwardedFor: undefined, trusted: proxies })).toBe(
      '10.0.0.2',
    );
    expect(clientIp({ peer: '10.0.0.2', forwardedFor: ' ', trusted: proxies })).toBe('10.0.0.2');
  });

  it('folds IPv4-mapped addresses on the socket and in the header', () => {
    expect(
      clientIp({ peer: '::ffff:10.0.0.2', forwardedFor: '::ffff:198.51.100.7', trusted: proxies }),
    ).toBe('198.51.100.7');
    expect(
      clientIp({ peer: '::ffff:203.0.113.9', forwardedFor: undefined, trusted: proxies }),
    ).toBe('203.0.113.9');
  });

  it('accepts forwarded elements carrying a port', () => {
    expect(
      clientIp({ peer: '10.0.0.2', forwardedFor: '198.51.100.7:51234', trusted: proxies }),
    ).toBe('198.51.100.7');
    expect(
      clientIp({ peer: '10.0.0.2', forwardedFor: '[2001:DB8::7]:443', trusted: proxies }),
    ).toBe('2001:db8::7');
  });

  it('is undefined without a usable socket address', () => {
    expect(
      clientIp({ peer: undefined, forwardedFor: '1.1.1.1', trusted: proxies }),
    ).toBeUndefined();
  });
});
