import { BlockList } from 'node:net';
import type { Config } from '../../config/config.ts';
import { safeEqual } from '../../lib/crypto.ts';
import { clientIp, type TrustedProxies } from '../protect/client-ip.ts';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** What decides one scrape: the caller's address as the socket sees it and its credentials. */
export type ScrapeRequest = {
  readonly peer: string | undefined;
  readonly forwardedFor: string | string[] | undefined;
  readonly authorization: string | undefined;
};

/**
 * Whether a caller may read `/metrics` (which names every route and its traffic): one that
 * presents `service.metrics.token` as a bearer token, or — while
 * `service.metrics.allow-loopback` is on — one on the loopback interface. The address is the
 * proxy-aware one, so a reverse proxy on the same machine does not open the metrics to
 * everyone it forwards.
 */
export function mayScrape(
  request: ScrapeRequest,
  settings: Config['metrics'],
  trusted: TrustedProxies,
): boolean {
  const token = settings.token;
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(request.authorization ?? '')?.[1];
  if (token !== undefined && presented !== undefined && safeEqual(presented, token)) return true;
  if (!settings.allowLoopback) return false;
  const ip = clientIp({ peer: request.peer, forwardedFor: request.forwardedFor, trusted });
  if (ip === undefined) return false;
  return LOOPBACK.check(ip, ip.includes(':') ? 'ipv6' : 'ipv4');
}
