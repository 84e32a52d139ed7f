import { isIP } from 'node:net';
import { isOneOf, isRecord } from '../../lib/narrow.ts';

/**
 * Captcha providers for the challenge page and the server-side check of a solved widget
 * (contracts/bot-protection.md §1). Every provider is "post the token, get JSON back"; the check
 * fails closed: only a well-formed JSON answer with `success: true` counts as solved.
 */

export const CAPTCHA_PROVIDER_NAMES = ['hcaptcha', 'recaptcha', 'turnstile'] as const;
export type CaptchaProviderName = (typeof CAPTCHA_PROVIDER_NAMES)[number];

export interface CaptchaProvider {
  readonly name: CaptchaProviderName;
  /** Widget script to load on the challenge page (`<script src=… async defer>`). */
  readonly scriptUrl: string;
  /** CSS class of the widget container: `<div class="…" data-sitekey="…">`. */
  readonly widgetClass: string;
  /** Attribute on the container that carries the site key. */
  readonly siteKeyAttribute: 'data-sitekey';
  /** Form field the widget fills with its response token. */
  readonly responseField: string;
  /** The provider's own verify endpoint (`SERVICE_PROTECT_CAPTCHA_VERIFY_URL` overrides it). */
  readonly verifyUrl: string;
  /** Whether the verify call takes the site key (`sitekey`); hCaptcha recommends sending it. */
  readonly verifySendsSiteKey: boolean;
  /** Origins the widget loads scripts, frames, styles and XHR from, for the page's CSP. */
  readonly cspSources: readonly string[];
}

export const CAPTCHA_PROVIDERS: Readonly<Record<CaptchaProviderName, CaptchaProvider>> = {
  hcaptcha: {
    name: 'hcaptcha',
    scriptUrl: 'https://js.hcaptcha.com/1/api.js',
    widgetClass: 'h-captcha',
    siteKeyAttribute: 'data-sitekey',
    // In reCAPTCHA-compat mode a g-recaptcha-response copy is posted too; read the h- field.
    responseField: 'h-captcha-response',
    verifyUrl: 'https://api.hcaptcha.com/siteverify',
    verifySendsSiteKey: true,
    cspSources: ['https://hcaptcha.com', 'https://*.hcaptcha.com'],
  },
  recaptcha: {
    name: 'recaptcha',
    scriptUrl: 'https://www.google.com/recaptcha/api.js',
    widgetClass: 'g-recaptcha',
    siteKeyAttribute: 'data-sitekey',
    responseField: 'g-recaptcha-response',
    verifyUrl: 'https://www.google.com/recaptcha/api/siteverify',
    verifySendsSiteKey: false,
    cspSources: ['https://www.google.com/recaptcha/', 'https://www.gstatic.com/recaptcha/'],
  },
  turnstile: {
    name: 'turnstile',
    scriptUrl: 'https://challenges.cloudflare.com/turnstile/v0/api.js',
    widgetClass: 'cf-turnstile',
    siteKeyAttribute: 'data-sitekey',
    responseField: 'cf-turnstile-response',
    verifyUrl: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
    verifySendsSiteKey: false,
    cspSources: ['https://challenges.cloudflare.com'],
  },
};

export function isCaptchaProviderName(value: unknown): value is CaptchaProviderName {
  return isOneOf(CAPTCHA_PROVIDER_NAMES, value);
}

/** The captcha part of `config.protect`. */
export interface CaptchaSettings {
  readonly captchaProvider?: string | null | undefined;
  readonly captchaSiteKey?: string | null | undefined;
  readonly captchaSecretKey?: string | null | undefined;
}

/**
 * The challenge is active only when provider, site key and secret key are all set (SPEC.md →
 * Limits). Otherwise metering still runs and refusals are 429.
 */
export function captchaIsConfigured(settings: CaptchaSettings): boolean {
  return (
    isCaptchaProviderName(settings.captchaProvider) &&
    typeof settings.captchaSiteKey === 'string' &&
    settings.captchaSiteKey.trim() !== '' &&
    typeof settings.captchaSecretKey === 'string' &&
    settings.captchaSecretKey.trim() !== ''
  );
}

/** Tokens are at most 2048 characters (Turnstile); one generous cap for all providers. */
export const MAX_CAPTCHA_RESPONSE_LENGTH = 4096;
export const DEFAULT_VERIFY_TIMEOUT_MS = 5000;
export const MAX_VERIFY_TIMEOUT_MS = 10_000;
const MAX_VERIFY_BODY_BYTES = 64 * 1024;

export interface VerifyCaptchaInput {
  readonly provider: CaptchaProviderName;
  readonly secret: string;
  /** The value of the provider's response field as posted; anything but a string fails. */
  readonly response: unknown;
  /** The proxy-aware client address; sent only when it parses as an IP. */
  readonly remoteIp?: string | undefined;
  /** Sent along to providers that take it (hCaptcha). */
  readonly siteKey?: string | undefined;
  /** Overrides the provider's verify endpoint (tests, proxies, self-hosted compatibles). */
  readonly verifyUrl?: string | URL | undefined;
  /** Deadline for the whole exchange; default 5 s, at most 10 s. */
  readonly timeoutMs?: number | undefined;
}

export type CaptchaFailure =
  | 'not-configured'
  | 'no-response'
  | 'timeout'
  | 'unreachable'
  | 'http-status'
  | 'too-large'
  | 'not-json'
  | 'rejected';

export type CaptchaVerdict =
  | { readonly success: true }
  | {
      readonly success: false;
      readonly reason: CaptchaFailure;
      /** The provider's `error-codes`, for the server log only; never shown to the caller. */
      readonly errorCodes: readonly string[];
    };

/** `verifyCaptcha` with the reason for a failure, for logging. Never throws. */
export async function checkCaptcha(input: VerifyCaptchaInput): Promise<CaptchaVerdict> {
  const { response } = input;
  if (!isCaptchaProviderName(input.provider) || !input.secret) return failure('not-configured');
  if (
    typeof response !== 'string' ||
    response === '' ||
    response.length > MAX_CAPTCHA_RESPONSE_LENGTH
  ) {
    return failure('no-response');
  }
  const provider = CAPTCHA_PROVIDERS[input.provider];
  const form = new URLSearchParams({ secret: input.secret, response });
  if (input.remoteIp !== undefined && isIP(input.remoteIp) !== 0) {
    form.set('remoteip', input.remoteIp);
  }
  if (provider.verifySendsSiteKey && input.siteKey) form.set('sitekey', input.siteKey);

  let body: string | undefined;
  try {
    const reply = await fetch(input.verifyUrl || provider.verifyUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: form.toString(),
      redirect: 'error',
      signal: AbortSignal.timeout(clampTimeout(input.timeoutMs)),
    });
    if (reply.status !== 200) {
      await reply.body?.cancel().catch(() => {});
      return failure('http-status');
    }
    body = await readCapped(reply, MAX_VERIFY_BODY_BYTES);
  } catch (error) {
    return failure(
      error instanceof Error && error.name === 'TimeoutError' ? 'timeout' : 'unreachable',
    );
  }
  if (body === undefined) return failure('too-large');
  return judge(body);
}

/**
 * Asks the provider whether `response` is a solved widget. True only on a well-formed JSON
 * answer with `success: true`; false on refusal, timeout, network error, non-200, non-JSON,
 * odd shapes or a missing/oversized token (which is not sent at all). Tokens are single-use, so
 * there is exactly one attempt.
 */
export async function verifyCaptcha(input: VerifyCaptchaInput): Promise<boolean> {
  return (await checkCaptcha(input)).success;
}

function judge(body: string): CaptchaVerdict {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return failure('not-json');
  }
  if (!isRecord(parsed)) return failure('not-json');
  const answer = parsed;
  if (answer.success === true) return { success: true };
  const codes = answer['error-codes'];
  const errorCodes = Array.isArray(codes)
    ? codes.filter((code): code is string => typeof code === 'string').slice(0, 10)
    : [];
  return failure('rejected', errorCodes);
}

function failure(reason: CaptchaFailure, errorCodes: readonly string[] = []): CaptchaVerdict {
  return { success: false, reason, errorCodes };
}

function clampTimeout(timeoutMs: number | undefined): number {
  if (timeoutMs === undefined || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    return DEFAULT_VERIFY_TIMEOUT_MS;
  }
  return Math.min(Math.ceil(timeoutMs), MAX_VERIFY_TIMEOUT_MS);
}

/** The body as UTF-8, or `undefined` once it grows past `maxBytes` (the rest is not read). */
async function readCapped(reply: Response, maxBytes: number): Promise<string | undefined> {
  if (reply.body === null) return '';
  const reader = reply.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
