import { describe, expect, it } from 'vitest';
import { CAPTCHA_PROVIDERS } from './captcha.ts';
import { challengeContentSecurityPolicy } from './challenge-csp.ts';

function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy.split(';').map((part) => {
      const [name = '', ...values] = part.trim().split(/\s+/);
      return [name, values];
    }),
  );
}

describe('challengeContentSecurityPolicy', () => {
  it('lets each provider load its script and frame, and nothing inline', () => {
    for (const provider of Object.values(CAPTCHA_PROVIDERS)) {
      const policy = directives(challengeContentSecurityPolicy(provider));
      for (const source of provider.cspSources) {
        expect(policy.get('script-src')).toContain(source);
        expect(policy.get('frame-src')).toContain(source);
      }
      expect(policy.get('script-src')).toContain("'self'");
      expect(challengeContentSecurityPolicy(provider)).not.toContain('unsafe');
      expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
      expect(policy.get('form-action')).toEqual(["'self'"]);
      expect(policy.get('object-src')).toEqual(["'none'"]);
    }
  });

  it('allows the script origin of the widget URL', () => {
    const turnstile = directives(challengeContentSecurityPolicy(CAPTCHA_PROVIDERS.turnstile));
    expect(turnstile.get('script-src')).toContain(
      new URL(CAPTCHA_PROVIDERS.turnstile.scriptUrl).origin,
    );
  });
});
