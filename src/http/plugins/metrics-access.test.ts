import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTrustedProxies } from '../protect/client-ip.ts';
import { FORWARDING_HEADERS, mayScrape } from './metrics-access.ts';

const open = { allowLoopback: true, token: 'scrape-token' } as const;
const nobody = parseTrustedProxies('');
const loopbackProxy = parseTrustedProxies('127.0.0.0/8, ::1');
const loopbackPeer = fc.constantFrom('127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1');
const outsider = fc.constantFrom('203.0.113.9', '198.51.100.1', '2001:db8::7', 'unknown');
/** Any non-empty set of forwarding headers, each spelled in some case. */
const forwardingSet = fc
  .uniqueArray(fc.constantFrom(...FORWARDING_HEADERS), { minLength: 1 })
  .chain((names) =>
    fc.tuple(...names.map((name) => fc.constantFrom(name, name.toUpperCase()))).map((n) => n),
  );
const harmless = fc.uniqueArray(fc.constantFrom('accept', 'user-agent', 'host', 'x-request-id'));

describe('mayScrape', () => {
  it('serves a loopback peer whose request carries no forwarding header', () => {
    fc.assert(
      fc.property(loopbackPeer, harmless, (peer, headerNames) => {
        const request = { peer, forwardedFor: undefined, authorization: undefined, headerNames };
        expect(mayScrape(request, open, nobody)).toBe(true);
      }),
    );
  });

  it('refuses a loopback peer carrying any forwarding header when no proxy is trusted', () => {
    fc.assert(
      fc.property(loopbackPeer, forwardingSet, harmless, outsider, (peer, sent, other, from) => {
        const forwardedFor = sent.some((n) => n.toLowerCase() === 'x-forwarded-for')
          ? from
          : undefined;
        const request = {
          peer,
          forwardedFor,
          authorization: undefined,
          headerNames: [...other, ...sent],
        };
        expect(mayScrape(request, open, nobody)).toBe(false);
        // The token still opens it: the operator's scraper may sit behind any proxy.
        expect(mayScrape({ ...request, authorization: 'Bearer scrape-token' }, open, nobody)).toBe(
          true,
        );
      }),
    );
  });

  it('behind a trusted proxy, believes X-Forwarded-For only and refuses other signals alone', () => {
    fc.assert(
      fc.property(loopbackPeer, forwardingSet, outsider, (peer, sent, from) => {
        const names = sent.map((n) => n.toLowerCase());
        const base = { peer, authorization: undefined };
        const withoutXff = names.filter((n) => n !== 'x-forwarded-for');
        if (withoutXff.length > 0) {
          const request = { ...base, forwardedFor: undefined, headerNames: withoutXff };
          expect(mayScrape(request, open, loopbackProxy)).toBe(false);
        }
        const relayed = { ...base, headerNames: [...names, 'x-forwarded-for'] };
        expect(mayScrape({ ...relayed, forwardedFor: from }, open, loopbackProxy)).toBe(false);
        expect(mayScrape({ ...relayed, forwardedFor: '127.0.0.1' }, open, loopbackProxy)).toBe(
          true,
        );
      }),
    );
  });

  it('never serves an outside peer without the token, whatever it sends', () => {
    fc.assert(
      fc.property(outsider, fc.uniqueArray(fc.constantFrom(...FORWARDING_HEADERS)), (peer, h) => {
        const request = {
          peer,
          forwardedFor: '127.0.0.1',
          authorization: undefined,
          headerNames: h,
        };
        expect(mayScrape(request, open, nobody)).toBe(false);
        expect(mayScrape(request, open, loopbackProxy)).toBe(false);
      }),
    );
  });
});
