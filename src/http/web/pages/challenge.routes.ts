import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../../config/config.ts';
import { isRecord } from '../../../lib/narrow.ts';
import { sendErrorPage } from '../../errors/web-errors.ts';
import { CAPTCHA_PROVIDERS, checkCaptcha } from '../../protect/captcha.ts';
import { challengeContentSecurityPolicy } from '../../protect/challenge-csp.ts';
import { meterKeyFor } from '../../protect/meter-key.ts';
import { type Protection, requestClientIp } from '../../protect/metering.plugin.ts';
import { issuePass } from '../../protect/pass-cookie.ts';
import { safeRedirectTarget } from '../../protect/safe-redirect.ts';
import { captchaFailureMessage } from '../form-captcha.ts';
import type { Pages } from '../page.ts';
import { challengePage, lifetimeInWords } from './challenge.view.ts';

/** What the challenge pages use. */
export type ChallengeRouteDeps = {
  readonly config: Pick<Config, 'protect'>;
};

/**
 * Failed verifications one address may cause per metering window. Each one costs an outbound call
 * to the provider (which rate-limits us in turn); a person rarely needs more than two tries.
 */
export const MAX_FAILED_CHALLENGES = 10;

const NOT_CONFIGURED =
  'This server has no human check. If a page refused you for asking too often, wait for the limit to reset or sign in.';

function stringField(source: unknown, name: string): unknown {
  if (!isRecord(source)) return undefined;
  const value = source[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * `GET /challenge` shows the provider's widget; `POST /challenge` asks the provider whether it
 * was solved and, if so, hands out the `service_human` pass and returns to the page asked for
 * (SPEC.md → Challenge endpoints). The post needs no CSRF token and reads no session: the solved
 * widget is the proof, and all it can earn is a larger budget for whoever holds the cookie.
 */
export function registerChallengeRoutes(
  server: FastifyInstance,
  deps: ChallengeRouteDeps,
  pages: Pages,
  protection: Protection,
): void {
  const settings = deps.config.protect;
  const provider = settings.captchaProvider ? CAPTCHA_PROVIDERS[settings.captchaProvider] : null;
  const siteKey = settings.captchaSiteKey ?? '';
  const secret = settings.captchaSecretKey ?? '';
  const csp = provider ? challengeContentSecurityPolicy(provider) : null;
  const lifetimeSeconds = Math.floor(settings.passLifetimeMs / 1000);
  const lifetime = lifetimeInWords(settings.passLifetimeMs);

  const render = (
    request: FastifyRequest,
    reply: FastifyReply,
    redirect: string,
    failure?: { status: number; message: string },
  ) => {
    if (!protection.captchaActive || provider === null || csp === null) {
      return sendErrorPage(pages, request, reply, 404, NOT_CONFIGURED);
    }
    reply.header('Content-Security-Policy', csp);
    return pages.send(request, reply, {
      status: failure?.status ?? 200,
      title: 'Are you human?',
      body: challengePage({ provider, siteKey, redirect, lifetime, error: failure?.message }),
    });
  };

  server.get('/challenge', async (request, reply) => {
    reply.header('Cache-Control', 'no-store');
    return render(request, reply, safeRedirectTarget(stringField(request.query, 'redirect')));
  });

  server.post('/challenge', async (request, reply) => {
    reply.header('Cache-Control', 'no-store');
    const redirect = safeRedirectTarget(stringField(request.body, 'redirect'));
    if (!protection.captchaActive || provider === null) return render(request, reply, redirect);

    const ip = requestClientIp(request, protection.trusted);
    const { meter, budgets } = protection;
    const failuresKey = `challenge:${meterKeyFor({ userId: undefined, validPass: undefined, clientIp: ip }, budgets).key}`;
    if (meter.used(failuresKey) >= MAX_FAILED_CHALLENGES) {
      const seconds = meter.hit(failuresKey, MAX_FAILED_CHALLENGES).retryAfterSeconds;
      reply.header('Retry-After', String(seconds));
      return render(request, reply, redirect, {
        status: 429,
        message: `Too many failed checks from this address. Please try again in ${seconds} second${seconds === 1 ? '' : 's'}.`,
      });
    }

    const verdict = await checkCaptcha({
      provider: provider.name,
      secret,
      response: stringField(request.body, provider.responseField),
      remoteIp: ip,
      siteKey,
      verifyUrl: settings.captchaVerifyUrl,
      timeoutMs: protection.captchaTimeoutMs,
    });
    if (verdict.success) {
      const pass = issuePass(secret, lifetimeSeconds, Date.now(), {
        secure: pages.secure(request),
      });
      reply.header('Set-Cookie', pass.setCookie);
      return reply.redirect(redirect, 303);
    }
    // A missing answer cost no call to the provider; everything else counts against the address.
    if (verdict.reason !== 'no-response') meter.hit(failuresKey, MAX_FAILED_CHALLENGES);
    request.log.info(
      { reason: verdict.reason, errorCodes: verdict.errorCodes },
      'captcha verification failed',
    );
    return render(request, reply, redirect, {
      status: 403,
      message: captchaFailureMessage(verdict.reason),
    });
  });
}
