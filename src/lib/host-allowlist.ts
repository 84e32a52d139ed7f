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
      const family = cidr ? isIP(cidr[1] as string) : 0;
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

/** Not reachable from the internet: Gitea's `private` plus what no webhook should ever reach. */
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['169.254.0.0', 16],
  ['100.64.0.0', 10],
  ['0.0.0.0', 8],
] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['fc00::', 7],
  ['fe80::', 10],
  ['::', 128],
] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv6');
}

/** Where an address lies: loopback, private (site or link local), or external. */
export function addressKind(address: string): 'loopback' | 'private' | 'external' {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const plain = mapped ? (mapped[1] as string) : address;
  const type = isIP(plain) === 6 ? 'ipv6' : 'ipv4';
  if (LOOPBACK.check(plain, type)) return 'loopback';
  if (PRIVATE.check(plain, type)) return 'private';
  // Multicast and reserved blocks are no webhook receiver either.
  if (type === 'ipv4' && Number(plain.split('.')[0]) >= 224) return 'private';
  return 'external';
}
