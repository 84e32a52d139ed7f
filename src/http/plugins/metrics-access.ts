import { BlockList } from 'node:net';
import type { Config } from '../../config/config.ts';
import { safeEqual } from '../../lib/crypto.ts';
import { clientIp, parseForwardedElement, type TrustedProxies } from '../protect/client-ip.ts';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Headers by which a proxy says it relays a request for someone else: the standard one
 * (RFC 7239), the de-facto `X-Forwarded-*` family, `Via`, and the client-address headers that
 * common proxies and CDNs write. Lower-case, as Node gives header names.
 */
export const FORWARDING_HEADERS: readonly string[] = [
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-forwarded-port',
  'x-forwarded-server',
  'x-forwarded',
  'forwarded-for',
  'x-original-forwarded-for',
  'x-real-ip',
  'x-client-ip',
  'client-ip',
  'true-client-ip',
  'cf-connecting-ip',
  'fastly-client-ip',
  'x-cluster-client-ip',
  'x-proxyuser-ip',
  'via',
];

/** What decides one scrape: the caller's address as the socket sees it and its credentials. */
export type ScrapeRequest = {
  readonly peer: string | undefined;
  readonly forwardedFor: string | string[] | undefined;
  readonly authorization: string | undefined;
  /** Names (lower-case) of the headers the request carries; forwarding ones are looked for. */
  readonly headerNames: readonly string[];
};

/**
 * Whether a caller may read `/metrics` (which names every route and its traffic): one that
 * presents `service.metrics.token` as a bearer token, or — while
 * `service.metrics.allow-loopback` is on — one on the loopback interface.
 *
 * Invariant: only a request that really starts on this machine counts as loopback. A request
 * that reaches the socket from loopback but carries any forwarding header (`FORWARDING_HEADERS`)
 * was relayed by a proxy on this machine for someone else, so it is refused, unless the peer is
 * a trusted proxy (`service.trust-proxy`) and its `X-Forwarded-For`, every hop an address, names a
 * loopback client.
 * A proxy nobody configured, or one that says who the client is only in a header Kiln does not
 * read (`Forwarded`, `X-Real-IP`, …), therefore never opens the metrics to the world.
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
  const forwarded = request.headerNames.some((name) =>
    FORWARDING_HEADERS.includes(name.toLowerCase()),
  );
  if (forwarded) {
    // Behind a trusted proxy, X-Forwarded-For must name every hop: an element that is no
    // address (`unknown`, a hidden hop) would otherwise leave the proxy's own loopback address
    // standing in for the client.
    const hops = [request.forwardedFor ?? []].flat().join(',').split(',');
    const viaTrustedProxy =
      request.peer !== undefined &&
      trusted.has(request.peer) &&
      hops.every((hop) => parseForwardedElement(hop) !== undefined);
    if (!viaTrustedProxy) return false;
  }
  const ip = clientIp({ peer: request.peer, forwardedFor: request.forwardedFor, trusted });
  if (ip === undefined) return false;
  return LOOPBACK.check(ip, ip.includes(':') ? 'ipv6' : 'ipv4');
}
