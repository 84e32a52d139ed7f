/**
 * Which servers Kiln federates with: an allowlist (when not empty, only those) and a blocklist.
 * Hosts compare case-insensitively; a rule for `example.com` also covers its subdomains, so a
 * blocked instance cannot come back under `a.example.com`.
 */
export class HostPolicy {
  readonly #allowed: readonly string[];
  readonly #blocked: readonly string[];
  readonly #blockedLater: () => Iterable<string>;

  /** `blockedLater` names hosts an administrator blocked at run time (read on every check). */
  constructor(
    allowed: readonly string[],
    blocked: readonly string[],
    blockedLater: () => Iterable<string> = () => [],
  ) {
    this.#allowed = allowed.map((host) => host.toLowerCase());
    this.#blocked = blocked.map((host) => host.toLowerCase());
    this.#blockedLater = blockedLater;
  }

  /** Whether Kiln talks to `host` (a `URL.host`, port included when there is one). */
  permits(host: string): boolean {
    const lower = host.toLowerCase();
    if (this.#blocked.some((rule) => covers(rule, lower))) return false;
    for (const rule of this.#blockedLater()) if (covers(rule, lower)) return false;
    return this.#allowed.length === 0 || this.#allowed.some((rule) => covers(rule, lower));
  }

  /** The same question for a URL; an unparsable one is never permitted. */
  permitsUrl(url: string): boolean {
    return URL.canParse(url) && this.permits(new URL(url).host);
  }
}

/** A rule with a port matches that host and port only; one without, the host on any port. */
export function covers(rule: string, host: string): boolean {
  const hostname = host.replace(/:\d+$/, '');
  const candidate = rule.includes(':') ? host : hostname;
  return candidate === rule || candidate.endsWith(`.${rule}`);
}
