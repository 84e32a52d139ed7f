import { isIP } from 'node:net';

/**
 * Which counter a metered request is charged to (SPEC.md → Limits, rule 2), in this order:
 * a logged-in user → `user:<principal>` with the user budget; else a valid `service_human` pass →
 * `pass:<cookie value>` with the user budget; else the client address → `ip:<address>` with the
 * anonymous budget.
 *
 * IPv6 clients are charged per /64 (`ip:2001:db8:1:2::/64`): one subscriber usually holds a whole
 * /64, so per-address keys would hand an IPv6 crawler an unlimited budget and flood the counter
 * map (contracts/bot-protection.md §3, as `@fastify/rate-limit` does by default).
 */

export type MeterKeyKind = 'user' | 'pass' | 'ip';

export interface MeterBudgets {
  /** Hits per window for an anonymous client address (default 30). */
  readonly anonymous: number;
  /** Hits per window for a logged-in account or a pass holder (default 120). */
  readonly user: number;
}

export interface MeterSubject {
  /** The logged-in user's stable id, when there is a session. */
  readonly userId: string | undefined;
  /** The `service_human` cookie value, only when `verifyPass` accepted it. */
  readonly validPass: string | undefined;
  /** The proxy-aware client address (`clientIp`). */
  readonly clientIp: string | undefined;
}

export interface MeterKey {
  readonly kind: MeterKeyKind;
  readonly key: string;
  readonly budget: number;
}

export function meterKeyFor(subject: MeterSubject, budgets: MeterBudgets): MeterKey {
  if (subject.userId !== undefined && subject.userId !== '') {
    return { kind: 'user', key: `user:${subject.userId}`, budget: budgets.user };
  }
  if (subject.validPass !== undefined && subject.validPass !== '') {
    return { kind: 'pass', key: `pass:${subject.validPass}`, budget: budgets.user };
  }
  return { kind: 'ip', key: `ip:${addressBucket(subject.clientIp)}`, budget: budgets.anonymous };
}

/**
 * What an over-budget request gets (SPEC.md → Errors): only an anonymous caller, and only while
 * the captcha is configured, is sent to the challenge; users and pass holders are never
 * challenged twice, and without a captcha everyone gets 429.
 */
export function refusalFor(kind: MeterKeyKind, captchaActive: boolean): 'challenge' | 'too-many' {
  return kind === 'ip' && captchaActive ? 'challenge' : 'too-many';
}

/** The address an anonymous counter is kept for: IPv4 as is, IPv6 by its /64 prefix. */
function addressBucket(address: string | undefined): string {
  if (address === undefined || address === '') return 'unknown';
  if (isIP(address) !== 6) return address;
  const groups = expandIpv6(address);
  if (groups === undefined) return address;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** The eight hex groups of an IPv6 address (no embedded IPv4, no zone), or undefined. */
function expandIpv6(address: string): string[] | undefined {
  if (address.includes('.') || address.includes('%')) return undefined;
  const [head = '', tail] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return undefined;
  return [...left, ...Array<string>(missing).fill('0'), ...right].map((g) => g.toLowerCase());
}
