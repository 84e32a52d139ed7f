import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config/config.ts';
import { CAPTCHA_PROVIDERS, type CaptchaFailure, checkCaptcha } from '../protect/captcha.ts';
import { challengeContentSecurityPolicy } from '../protect/challenge-csp.ts';
import type { Protection } from '../protect/metering.plugin.ts';
import { formValue } from './forms.ts';
import { type Html, html } from './html.ts';

/** What a person reads when the check on a form failed (never the provider's own codes). */
export function captchaFailureMessage(reason: CaptchaFailure): string {
  if (reason === 'no-response') return 'Please solve the check before continuing.';
  if (reason === 'rejected') return 'The check was not solved. Please try again.';
  return 'The check could not be verified right now. Please try again in a moment.';
}

/**
 * The captcha on the sign-in and sign-up forms: the same provider, keys and verifier as the
 * challenge page, but asked for inside the form, so one post carries both the solved widget and
 * the credentials. Absent (null) when the captcha is not configured.
 */
export type FormCaptcha = {
  /** The widget and its script; the page must be sent after `allowWidget`. */
  widget(): Html;
  /** Widens this response's Content-Security-Policy by the provider's sources. */
  allowWidget(reply: FastifyReply): void;
  /** Asks the provider about the posted widget; fails closed. */
  verify(request: FastifyRequest, clientIp: string): Promise<CaptchaFailure | undefined>;
};

export function formCaptcha(
  config: Pick<Config, 'protect'>,
  protection: Protection,
): FormCaptcha | null {
  const settings = config.protect;
  if (!protection.captchaActive || !settings.captchaProvider) return null;
  const provider = CAPTCHA_PROVIDERS[settings.captchaProvider];
  const siteKey = settings.captchaSiteKey ?? '';
  const csp = challengeContentSecurityPolicy(provider);
  return {
    widget: () =>
      html`<div class="${provider.widgetClass} mb-3" data-sitekey="${siteKey}"></div>
      <noscript><p class="color-fg-attention">The check needs JavaScript.</p></noscript>
      <script src="${provider.scriptUrl}" async defer></script>`,
    allowWidget: (reply) => {
      reply.header('Content-Security-Policy', csp);
    },
    async verify(request, clientIp) {
      const verdict = await checkCaptcha({
        provider: provider.name,
        secret: settings.captchaSecretKey ?? '',
        response: formValue(request.body, provider.responseField),
        remoteIp: clientIp,
        siteKey,
        verifyUrl: settings.captchaVerifyUrl,
        timeoutMs: protection.captchaTimeoutMs,
      });
      if (verdict.success) return undefined;
      request.log.info(
        { reason: verdict.reason, errorCodes: verdict.errorCodes },
        'captcha verification failed',
      );
      return verdict.reason;
    },
  };
}
