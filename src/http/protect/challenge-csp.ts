import type { CaptchaProvider } from './captcha.ts';

/**
 * The pages' Content-Security-Policy, optionally widened by a few third-party sources for
 * scripts, styles, frames and fetches (only the challenge page uses that, for its captcha
 * widget). No inline script and no `unsafe-*` source is ever allowed.
 */
export function contentSecurityPolicy(extraSources: readonly string[] = []): string {
  const extra = extraSources.length === 0 ? '' : ` ${extraSources.join(' ')}`;
  return [
    "default-src 'self'",
    `script-src 'self'${extra}`,
    `style-src 'self'${extra}`,
    ...(extra ? [`frame-src${extra}`, `connect-src 'self'${extra}`] : []),
    "img-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The challenge page's policy: the default plus what the provider's widget needs. */
export function challengeContentSecurityPolicy(provider: CaptchaProvider): string {
  return contentSecurityPolicy(provider.cspSources);
}
