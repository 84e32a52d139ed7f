import { describe, expect, it } from 'vitest';
import { meterKeyFor, refusalFor } from './meter-key.ts';

const budgets = { anonymous: 30, user: 120 };

describe('meterKeyFor', () => {
  it('charges a logged-in user to the account, with the user budget', () => {
    expect(
      meterKeyFor({ userId: 'u-42', validPass: '123.abc', clientIp: '1.2.3.4' }, budgets),
    ).toEqual({ kind: 'user', key: 'user:u-42', budget: 120 });
  });

  it('charges a pass holder to the pass value, with the user budget', () => {
    expect(
      meterKeyFor({ userId: undefined, validPass: '123.abc', clientIp: '1.2.3.4' }, budgets),
    ).toEqual({ kind: 'pass', key: 'pass:123.abc', budget: 120 });
  });

  it('charges everyone else to the client address, with the anonymous budget', () => {
    expect(
      meterKeyFor({ userId: undefined, validPass: undefined, clientIp: '1.2.3.4' }, budgets),
    ).toEqual({ kind: 'ip', key: 'ip:1.2.3.4', budget: 30 });
    expect(meterKeyFor({ userId: '', validPass: '', clientIp: '1.2.3.4' }, budgets).kind).toBe(
      'ip',
    );
  });

  it('buckets IPv6 clients by /64', () => {
    const key = (clientIp: string) =>
      meterKeyFor({ userId: undefined, validPass: undefined, clientIp }, budgets).key;
    expect(key('2001:db8:0:1:aaaa::1')).toBe('ip:2001:db8:0:1::/64');
    expect(key('2001:db8:0:1:bbbb:cccc:dddd:eeee')).toBe('ip:2001:db8:0:1::/64');
    expect(key('2001:db8:0:2::1')).toBe('ip:2001:db8:0:2::/64');
    expect(key('2001:0DB8::')).toBe('ip:2001:db8:0:0::/64');
    expect(key('::1')).toBe('ip:0:0:0:0::/64');
    expect(key('fe80:1:2:3:4:5:6:7')).toBe('ip:fe80:1:2:3::/64');
  });

  it('uses a shared key when the address is unknown', () => {
    expect(
      meterKeyFor({ userId: undefined, validPass: undefined, clientIp: undefined }, budgets).key,
    ).toBe('ip:unknown');
  });
});

describe('refusalFor', () => {
  it('challenges only anonymous callers, and only with a captcha configured', () => {
    expect(refusalFor('ip', true)).toBe('challenge');
    expect(refusalFor('ip', false)).toBe('too-many');
    expect(refusalFor('user', true)).toBe('too-many');
    expect(refusalFor('pass', true)).toBe('too-many');
  });
});
