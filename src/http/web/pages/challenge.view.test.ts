import { describe, expect, it } from 'vitest';
import { CAPTCHA_PROVIDERS } from '../../protect/captcha.ts';
import { challengePage, lifetimeInWords } from './challenge.view.ts';

describe('lifetimeInWords', () => {
  it('names the largest whole unit', () => {
    expect(lifetimeInWords(86_400_000)).toBe('1 day');
    expect(lifetimeInWords(2 * 86_400_000)).toBe('2 days');
    expect(lifetimeInWords(3_600_000)).toBe('1 hour');
    expect(lifetimeInWords(90 * 60_000)).toBe('90 minutes');
    expect(lifetimeInWords(60_000)).toBe('1 minute');
  });
});

describe('challengePage', () => {
  it('escapes the redirect target and the site key', () => {
    const page = challengePage({
      provider: CAPTCHA_PROVIDERS.hcaptcha,
      siteKey: '"><x',
      redirect: '/a?b="c"',
      lifetime: '1 day',
    }).value;
    expect(page).toContain('data-sitekey="&quot;&gt;&lt;x"');
    expect(page).toContain('name="redirect" value="/a?b=&quot;c&quot;"');
    expect(page).not.toContain('role="alert"');
  });
});
