import type { CaptchaProvider } from './captcha.ts';

/**
 * Content-Security-Policy of the challenge page: the pages' strict default, widened only as far
 * as the provider's widget needs (its script, its iframe, its styles and the calls it makes back
 * home). No inline script and no `unsafe-*` source is ever allowed, not even here.
 */
export function challengeContentSecurityPolicy(provider: CaptchaProvider): string {
  const sources = provider.cspSources.join(' ');
  return [
    "default-src 'self'",
    `script-src 'self' ${sources}`,
    `style-src 'self' ${sources}`,
    `frame-src ${sources}`,
    `connect-src 'self' ${sources}`,
    "img-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}
