import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { issuePass, MAX_PASS_VALUE_LENGTH, verifyPass } from './pass-cookie.ts';

const SECRET = '0x4AAAAAAA-test-secret';
const NOW = Date.UTC(2026, 10, 22, 12, 0, 0); // epoch ms
const NOW_S = NOW / 1000;
const DAY = 86_400;

/** The MAC computed here from first principles, not through the module under test. */
function expectedMac(secret: string, expiry: string): string {
  const key = createHash('sha256').update(secret).digest();
  return createHmac('sha256', key).update(expiry).digest('hex');
}

describe('issuePass', () => {
  it('embeds the expiry and an HMAC keyed by the SHA-256 of the secret', () => {
    const pass = issuePass(SECRET, DAY, NOW, { secure: false });
    expect(pass.name).toBe('service_human');
    expect(pass.expiresAtSeconds).toBe(NOW_S + DAY);
    expect(pass.value).toBe(`${NOW_S + DAY}.${expectedMac(SECRET, String(NOW_S + DAY))}`);
  });

  it('rounds a sub-second clock down before adding the lifetime', () => {
    expect(issuePass(SECRET, 60, NOW + 999, { secure: false }).expiresAtSeconds).toBe(NOW_S + 60);
  });

  it('sets HttpOnly, SameSite=Lax, Path=/ and Max-Age, and Secure only when asked', () => {
    const plain = issuePass(SECRET, 3600, NOW, { secure: false });
    expect(plain.attributes).toEqual({
      httpOnly: true,
      sameSite: 'lax',
      path: '/',
      secure: false,
      maxAge: 3600,
    });
    expect(plain.setCookie).toBe(
      `service_human=${plain.value}; Max-Age=3600; Path=/; HttpOnly; SameSite=Lax`,
    );
    const secure = issuePass(SECRET, 3600, NOW, { secure: true });
    expect(secure.attributes.secure).toBe(true);
    expect(secure.setCookie.endsWith('; SameSite=Lax; Secure')).toBe(true);
    expect(secure.setCookie).not.toMatch(/Domain=/i);
  });

  it('refuses to mint without a secret or with a nonsensical lifetime', () => {
    expect(() => issuePass('', DAY, NOW, { secure: false })).toThrow();
    expect(() => issuePass(SECRET, 0, NOW, { secure: false })).toThrow(RangeError);
    expect(() => issuePass(SECRET, 1.5, NOW, { secure: false })).toThrow(RangeError);
  });
});

describe('verifyPass', () => {
  const pass = issuePass(SECRET, DAY, NOW, { secure: false });

  it('accepts a pass it issued, until the second it expires', () => {
    expect(verifyPass(pass.value, SECRET, NOW)).toBe(true);
    expect(verifyPass(pass.value, SECRET, (NOW_S + DAY) * 1000 - 1)).toBe(true);
    expect(verifyPass(pass.value, SECRET, (NOW_S + DAY) * 1000)).toBe(false);
    expect(verifyPass(pass.value, SECRET, (NOW_S + DAY + 3600) * 1000)).toBe(false);
  });

  it('accepts an independently built value (stateless, survives restarts)', () => {
    const expiry = String(NOW_S + 60);
    expect(verifyPass(`${expiry}.${expectedMac(SECRET, expiry)}`, SECRET, NOW)).toBe(true);
  });

  it('refuses a pass signed with another secret (rotation revokes)', () => {
    expect(verifyPass(pass.value, `${SECRET}x`, NOW)).toBe(false);
    expect(verifyPass(pass.value, '', NOW)).toBe(false);
  });

  it('refuses a pass whose expiry was pushed out', () => {
    const [, macHex] = pass.value.split('.');
    expect(verifyPass(`${NOW_S + 10 * DAY}.${macHex}`, SECRET, NOW)).toBe(false);
  });

  it('refuses a flipped MAC digit', () => {
    const last = pass.value.at(-1)!;
    const flipped = pass.value.slice(0, -1) + (last === '0' ? '1' : '0');
    expect(verifyPass(flipped, SECRET, NOW)).toBe(false);
  });

  it('refuses truncated, padded and reshaped values', () => {
    const [expiry, macHex] = pass.value.split('.') as [string, string];
    const bad = [
      '',
      '.',
      expiry,
      `${expiry}.`,
      `.${macHex}`,
      pass.value.slice(0, -1),
      `${pass.value}0`,
      `${pass.value} `,
      ` ${pass.value}`,
      `${expiry}.${macHex.toUpperCase()}`,
      `${expiry}..${macHex}`,
      `${expiry}.${macHex}.${macHex}`,
      `0${expiry}.${macHex}`,
      `+${expiry}.${macHex}`,
      `${expiry}.0x${macHex.slice(2)}`,
      `${expiry}:${macHex}`,
      `${expiry}.${Buffer.from(macHex, 'hex').toString('base64url')}`,
      `1e10.${macHex}`,
    ];
    for (const value of bad) expect(verifyPass(value, SECRET, NOW), value).toBe(false);
    expect(verifyPass(undefined, SECRET, NOW)).toBe(false);
  });

  it('refuses overlong values before any work', () => {
    expect(verifyPass(`${'9'.repeat(MAX_PASS_VALUE_LENGTH)}.${'a'.repeat(64)}`, SECRET, NOW)).toBe(
      false,
    );
    expect(verifyPass(`1${'0'.repeat(20)}.${'a'.repeat(64)}`, SECRET, NOW)).toBe(false);
  });

  it('refuses a pass outliving the configured lifetime (lifetime lowered since issue)', () => {
    expect(verifyPass(pass.value, SECRET, NOW, { maxLifetimeSeconds: DAY })).toBe(true);
    expect(verifyPass(pass.value, SECRET, NOW, { maxLifetimeSeconds: 3600 })).toBe(false);
    // Later in the pass's life it fits under the lower lifetime again.
    expect(
      verifyPass(pass.value, SECRET, (NOW_S + DAY - 3600) * 1000, { maxLifetimeSeconds: 3600 }),
    ).toBe(true);
  });
});
