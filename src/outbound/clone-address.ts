import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { HostAllowlist } from '../lib/host-allowlist.ts';
import { OutboundError } from './outbound-request.ts';

/** Where git connects for a clone address: its host, port and the one address allowed. */
export type PinnedAddress = {
  readonly host: string;
  readonly port: number;
  readonly address: string;
};

/**
 * Resolves the host of a clone address once and picks an address federation may reach (global
 * addresses only, unless private ones are allowed for tests). Git is then told to connect to
 * exactly that address (`remote-fetch.ts`), never to resolve the name itself: a name that
 * answers with a public address now and a private one a moment later (DNS rebinding) cannot
 * lead a clone into the server's own network.
 *
 * @throws OutboundError when the name resolves to no address that may be reached.
 */
export async function pinCloneAddress(url: string, allowPrivate: boolean): Promise<PinnedAddress> {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(parsed.port) || (parsed.protocol === 'https:' ? 443 : 80);
  const policy = new HostAllowlist(allowPrivate ? ['*'] : ['external']);
  const found = isIP(host)
    ? [{ address: host }]
    : await lookup(host, { all: true }).catch(() => []);
  const usable = found.find((entry) => policy.admitsAddress(entry.address));
  if (!usable) throw new OutboundError(`${parsed.host} resolves to no address Kiln may fetch from`);
  return { host: parsed.hostname, port, address: usable.address };
}
