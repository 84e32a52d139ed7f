import { BlockList, isIP } from 'node:net';

/**
 * Which network destinations outgoing requests (webhooks) may reach, with Gitea's vocabulary
 * (`modules/hostmatcher`): `loopback`, `private` (RFC 1918, unique local and link-local),
 * `external` (every global address), `*` (everything), a host name glob (`*.example.com`), or a
 * CIDR. A host name rule admits the name whatever it resolves to; every other rule judges the
 * address actually connected to, so the check belongs in the connection's DNS lookup.
 */
export class HostAllowlist {
  readonly #all: boolean;
  readonly #loopback: boolean;
  readonly #private: boolean;
  readonly #external: boolean;
  readonly #names: readonly RegExp[];
  readonly #cidrs = new BlockList();
  readonly #hasCidrs: boolean;

  constructor(rules: readonly string[]) {
    const lower = rules.map((rule) => rule.trim().toLowerCase()).filter((rule) => rule !== '');
    this.#all = lower.includes('*');
    this.#loopback = lower.includes('loopback');
    this.#private = lower.includes('private');
    this.#external = lower.includes('external');
    const names: RegExp[] = [];
    let hasCidrs = false;
    for (const rule of lower) {
      if (['*', 'loopback', 'private', 'external'].includes(rule)) continue;
      const cidr = /^(.+)\/(\d{1,3})$/.exec(rule);
      const family = cidr ? isIP(cidr[1] ?? '') : 0;
      if (cidr && family !== 0) {
        this.#cidrs.addSubnet(cidr[1] as string, Number(cidr[2]), family === 6 ? 'ipv6' : 'ipv4');
        hasCidrs = true;
      } else {
        names.push(globToRegExp(rule));
      }
    }
    this.#names = names;
    this.#hasCidrs = hasCidrs;
  }

  /** Whether a host name (not an address) is admitted by a name rule, whatever it resolves to. */
  admitsName(hostname: string): boolean {
    if (this.#all) return true;
    const lower = hostname.toLowerCase();
    return this.#names.some((pattern) => pattern.test(lower));
  }

  /** Whether an IP address may be connected to. */
  admitsAddress(address: string): boolean {
    if (this.#all) return true;
    const family = isIP(address);
    if (family === 0) return false;
    const kind = addressKind(address);
    if (kind === 'loopback' && this.#loopback) return true;
    if (kind === 'private' && this.#private) return true;
    if (kind === 'external' && this.#external) return true;
    if (this.#names.some((pattern) => pattern.test(address))) return true;
    return this.#hasCidrs && this.#cidrs.check(address, family === 6 ? 'ipv6' : 'ipv4');
  }
}

/** `*` matches any run of characters, `?` one; everything else literally. */
function globToRegExp(glob: string): RegExp {
  const body = glob
    .split('')
    .map((char) =>
      char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[.+^${}()|[\]\\]/g, '\\$&'),
    )
    .join('');
  return new RegExp(`^${body}$`);
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Not reachable from the internet, or not meant to be: Gitea's `private` (RFC 1918, unique local,
 * link-local) plus shared, reserved, documentation, benchmarking, relay, multicast and transition
 * ranges (RFC 6890's special-purpose registries), none of which is a webhook receiver or a
 * federated server.
 */
const PRIVATE_V4 = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 3],
] as const) {
  PRIVATE_V4.addSubnet(net, bits, 'ipv4');
}
/** Kept apart from the IPv4 list: a BlockList checks IPv4 addresses against IPv6 rules too. */
const PRIVATE_V6 = new BlockList();
for (const [net, bits] of [
  // The unspecified, IPv4-compatible and most other forms that embed an IPv4 address
  // (::ffff:a.b.c.d is judged by the address it embeds, below).
  ['::', 16],
  ['100::', 64],
  ['2001::', 32],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['64:ff9b:1::', 48],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE_V6.addSubnet(net, bits, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped (`::ffff:…`) or NAT64 (`64:ff9b::…`) IPv6 address. */
function embeddedIPv4(address: string): string | undefined {
  const match =
    /^(?:::ffff:|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(
      address,
    );
  if (!match) return undefined;
  if (match[1]) return match[1];
  const high = Number.parseInt(match[2] ?? '', 16);
  const low = Number.parseInt(match[3] ?? '', 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** Where an address lies: loopback, private (not globally reachable), or external. */
export function addressKind(address: string): 'loopback' | 'private' | 'external' {
  const plain = embeddedIPv4(address) ?? address;
  const type = isIP(plain) === 6 ? 'ipv6' : 'ipv4';
  if (LOOPBACK.check(plain, type)) return 'loopback';
  if ((type === 'ipv4' ? PRIVATE_V4 : PRIVATE_V6).check(plain, type)) return 'private';
  return 'external';
}

/**
 * Whether a URL names this machine only: `localhost` or a loopback address. A name that merely
 * resolves to loopback today does not count, since what it resolves to can change.
 */
export function isLoopbackUrl(url: URL): boolean {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (host === 'localhost') return true;
  return isIP(host) !== 0 && addressKind(host) === 'loopback';
}
