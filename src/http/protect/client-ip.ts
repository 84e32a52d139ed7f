import { BlockList, isIP, SocketAddress } from 'node:net';

/**
 * Proxy-aware client address (SPEC.md → Limits, rule 2; contracts/bot-protection.md §3).
 *
 * `X-Forwarded-For` is read only when the socket peer is a configured trusted proxy. The list is
 * then walked from the right (each proxy appends the peer it saw), skipping trusted hops; the
 * first address outside the trusted set is the client. Entries left of it were written by the
 * client and are never read.
 */

/** The set of trusted reverse proxies, parsed once from configuration. */
export interface TrustedProxies {
  /** The configured entries, trimmed, in order (e.g. to hand to Fastify's `trustProxy`). */
  readonly entries: readonly string[];
  /** Whether `address` (any spelling; IPv4-mapped IPv6 folded) lies in a trusted range. */
  has(address: string): boolean;
}

/** Trusts nobody: the socket peer is always the client. */
export const NO_TRUSTED_PROXIES: TrustedProxies = parseTrustedProxies('');

/**
 * Parses `SERVICE_TRUST_PROXY`: IPv4/IPv6 addresses and CIDR ranges (`10.0.0.0/8`, `fd00::/8`),
 * comma-separated or already split into a list. Empty entries are ignored; anything else that is
 * not an address or range throws an `Error` naming the entry.
 *
 * @example parseTrustedProxies('127.0.0.1, ::1, 10.1.0.0/16').has('10.1.2.3') // true
 */
export function parseTrustedProxies(value: string | readonly string[]): TrustedProxies {
  const entries = (typeof value === 'string' ? [value] : value)
    .flatMap((item) => item.split(','))
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const list = new BlockList();
  for (const entry of entries) addRange(list, entry);
  return {
    entries,
    has(address: string): boolean {
      const ip = normalizeIp(address);
      if (ip === undefined || entries.length === 0) return false;
      return list.check(ip, isIP(ip) === 4 ? 'ipv4' : 'ipv6');
    },
  };
}

function addRange(list: BlockList, entry: string): void {
  const slash = entry.indexOf('/');
  const written = slash === -1 ? entry : entry.slice(0, slash);
  const prefixText = slash === -1 ? undefined : entry.slice(slash + 1);
  const address = normalizeIp(written);
  if (address === undefined || (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText))) {
    throw new Error(`invalid trusted proxy entry "${entry}": expected an IP address or CIDR range`);
  }
  const family = isIP(address) === 4 ? 'ipv4' : 'ipv6';
  const maxPrefix = family === 'ipv4' ? 32 : 128;
  // An IPv4-mapped range (::ffff:10.0.0.0/104) folds to IPv4 and drops the 96 mapping bits.
  const foldedBits = family === 'ipv4' && isIP(written) === 6 ? 96 : 0;
  const prefix = prefixText === undefined ? maxPrefix : Number(prefixText) - foldedBits;
  if (prefix < 0 || prefix > maxPrefix) {
    throw new Error(`invalid trusted proxy entry "${entry}": prefix length out of range`);
  }
  list.addSubnet(address, prefix, family);
}

/**
 * Canonical text of an IP address, or `undefined` when `value` is not one: IPv6 lowercased and
 * compressed, zone id dropped, IPv4-mapped IPv6 (`::ffff:1.2.3.4`) folded to IPv4.
 */
export function normalizeIp(value: string): string | undefined {
  const family = isIP(value);
  if (family === 0) return undefined;
  if (family === 4) return value;
  let canonical: string;
  try {
    canonical = new SocketAddress({ address: value, family: 'ipv6' }).address;
  } catch {
    return undefined;
  }
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(canonical);
  return mapped?.[1] ?? canonical;
}

/**
 * Reads one `X-Forwarded-For` element: a bare address, or one with a port as some proxies write
 * it (`1.2.3.4:5678`, `[2001:db8::1]:443`).
 */
export function parseForwardedElement(element: string): string | undefined {
  const value = element.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(value);
  if (bracketed) return normalizeIp(bracketed[1]!);
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(value);
  return normalizeIp(withPort ? withPort[1]! : value);
}

export interface ClientIpInput {
  /** The socket's remote address (`request.socket.remoteAddress`). */
  readonly peer: string | undefined;
  /** The `X-Forwarded-For` header as Node gives it (repeated headers are joined with `, `). */
  readonly forwardedFor: string | readonly string[] | undefined;
  readonly trusted: TrustedProxies;
}

/**
 * The client's address, normalised (see `normalizeIp`). Without a trusted peer the header is
 * ignored, so a client cannot choose its own metering key. When a trusted hop forwards a
 * malformed element, the walk stops at the last address it could vouch for. `undefined` only
 * when the socket has no usable address.
 */
export function clientIp({ peer, forwardedFor, trusted }: ClientIpInput): string | undefined {
  let current = peer === undefined ? undefined : normalizeIp(peer);
  if (current === undefined || forwardedFor === undefined || !trusted.has(current)) return current;
  const elements = (typeof forwardedFor === 'string' ? [forwardedFor] : forwardedFor)
    .join(',')
    .split(',');
  for (let i = elements.length - 1; i >= 0 && trusted.has(current); i--) {
    const element = elements[i]!;
    if (element.trim() === '') continue;
    const next = parseForwardedElement(element);
    if (next === undefined) break;
    current = next;
  }
  return current;
}
