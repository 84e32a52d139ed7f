import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
} from 'fastify';
import type { Config } from '../../config/config.ts';
import type { Server } from '../../lib/node-http.ts';
import { asError } from '../../lib/thrown.ts';
import { sendErrorPage } from '../errors/web-errors.ts';
import type { Pages } from '../web/page.ts';
import { captchaIsConfigured, DEFAULT_VERIFY_TIMEOUT_MS } from './captcha.ts';
import { clientIp, parseTrustedProxies, type TrustedProxies } from './client-ip.ts';
import { FixedWindowMeter } from './fixed-window-meter.ts';
import { type MeterBudgets, meterKeyFor, refusalFor } from './meter-key.ts';
import { PASS_COOKIE_NAME, verifyPass } from './pass-cookie.ts';
import { challengeLocation } from './safe-redirect.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Count GET/HEAD requests of this route against the caller's budget (SPEC.md → Limits). */
    metered?: boolean;
  }
}

/** The bot protection state of one server: its meter and how it reads callers. */
export interface Protection {
  /** One meter per server: counters are per process and in memory. */
  readonly meter: FixedWindowMeter;
  readonly trusted: TrustedProxies;
  readonly budgets: MeterBudgets;
  /** Whether over-budget anonymous callers are sent to the challenge. */
  readonly captchaActive: boolean;
  /** Deadline of one verify call; tests and benchmarks may shorten it. */
  captchaTimeoutMs: number;
}

// Keyed by the HTTP server, which every encapsulated Fastify context of one instance shares.
const PROTECTIONS = new WeakMap<Server, Protection>();

/** The protection state of a built server (for tests and benchmarks), if it has pages. */
export function protectionOf(server: FastifyInstance): Protection | undefined {
  return PROTECTIONS.get(server.server);
}

/** The proxy-aware client address of a request (SPEC.md → Limits, rule 2). */
export function requestClientIp(request: FastifyRequest, trusted: TrustedProxies): string {
  return (
    clientIp({
      peer: request.socket.remoteAddress,
      forwardedFor: request.headers['x-forwarded-for'],
      trusted,
    }) ?? 'unknown'
  );
}

/**
 * Meters the routes of this context whose route config says `metered: true`, GET and HEAD only,
 * and refuses callers over budget: 303 to the challenge for an anonymous caller while the captcha
 * is configured, 429 with `Retry-After` for everyone else (SPEC.md → Errors). Runs as a
 * preHandler, so the session's viewer is already known. With metering disabled no hook is
 * added at all.
 */
export function registerMetering(
  server: FastifyInstance,
  deps: { config: Pick<Config, 'protect' | 'trustProxy'>; pages: Pages },
): Protection {
  const { config, pages } = deps;
  const settings = config.protect;
  const protection: Protection = {
    meter: new FixedWindowMeter({ windowMs: settings.windowMs }),
    trusted: parseTrustedProxies(config.trustProxy),
    budgets: { anonymous: settings.anonymousBudget, user: settings.userBudget },
    captchaActive: captchaIsConfigured(settings),
    captchaTimeoutMs: DEFAULT_VERIFY_TIMEOUT_MS,
  };
  PROTECTIONS.set(server.server, protection);
  if (settings.enabled) server.addHook('preHandler', meteringHook(protection, settings, pages));
  return protection;
}

/**
 * The metering check itself, in callback style: the whole decision is synchronous, so it costs
 * no promise per request. Exported for the benchmark, which times it in isolation.
 */
export function meteringHook(
  protection: Protection,
  settings: Config['protect'],
  pages: Pages,
): (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void {
  const secret = settings.captchaSecretKey ?? '';
  const maxLifetimeSeconds = Math.floor(settings.passLifetimeMs / 1000);
  const validPass = (request: FastifyRequest, nowMs: number): string | undefined => {
    if (secret === '') return undefined;
    const value = request.cookies[PASS_COOKIE_NAME];
    return verifyPass(value, secret, nowMs, { maxLifetimeSeconds }) ? value : undefined;
  };

  return (request, reply, done) => {
    if (
      request.routeOptions.config.metered !== true ||
      (request.method !== 'GET' && request.method !== 'HEAD')
    ) {
      done();
      return;
    }
    const now = Date.now();
    const viewer = request.viewer;
    const userId = viewer.kind === 'user' ? viewer.user.id : undefined;
    const { kind, key, budget } = meterKeyFor(
      {
        userId,
        validPass: userId === undefined ? validPass(request, now) : undefined,
        clientIp: requestClientIp(request, protection.trusted),
      },
      protection.budgets,
    );
    const decision = protection.meter.hit(key, budget, now);
    if (decision.allowed) {
      done();
      return;
    }
    reply.header('Cache-Control', 'no-store');
    if (refusalFor(kind, protection.captchaActive) === 'challenge') {
      reply.redirect(challengeLocation(request.url), 303);
      return;
    }
    const seconds = decision.retryAfterSeconds;
    reply.header('Retry-After', String(seconds));
    try {
      sendErrorPage(pages, request, reply, 429, tooManyMessage(kind === 'ip', seconds));
    } catch (error) {
      done(asError(error));
    }
  };
}

function tooManyMessage(anonymous: boolean, seconds: number): string {
  const wait = `Please try again in ${seconds} second${seconds === 1 ? '' : 's'}.`;
  return anonymous
    ? `This address has asked for many expensive pages in a short time. ${wait} Signed-in accounts get a larger allowance.`
    : `You have asked for many expensive pages in a short time. ${wait}`;
}
