import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import https from 'node:https';
import { isIP } from 'node:net';
import { http } from '../lib/node-http.ts';
import type { AddressPolicy } from './address-policy.ts';
import type { ConnectionPools } from './connection-pools.ts';

/** One request to another server, fully built. */
export type OutboundRequest = {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Uint8Array;
};

/** What came back: the status, every header line, and at most the allowed bytes of the body. */
export type OutboundAnswer = {
  readonly status: number;
  /** Header lines as received, names lower-cased; a repeated header appears once per line. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Buffer<ArrayBuffer>;
};

export type OutboundOptions = {
  /** Which destinations may be connected to; judged on the address actually connected to. */
  readonly policy: AddressPolicy;
  /** The whole exchange, connection to last byte: a peer that trickles cannot hold a slot. */
  readonly timeoutMs: number;
  readonly maxBodyBytes: number;
  /**
   * Past `maxBodyBytes`: `keep-first` answers with the first bytes (a delivery log keeps a
   * prefix), `fail` refuses the answer (a document cut short is no document).
   */
  readonly overflow: 'keep-first' | 'fail';
  /** What the peer is, for refusals (`webhook` → "… is not an allowed webhook address"). */
  readonly purpose?: string;
  /** Keep-alive pools; without them every request opens, and closes, its own connection. */
  readonly pools?: ConnectionPools;
};

/** The peer could not be reached, was refused by the policy, took too long or said too much. */
export class OutboundError extends Error {}

/**
 * The one way Kiln's server reaches another server (webhooks, federation). The policy is applied
 * to the address the socket connects to, inside the connection's own DNS lookup: a name that
 * resolved to a public address when it was saved and to 127.0.0.1 now (DNS rebinding) is
 * refused, and the checked address is the one connected to. Literal addresses skip DNS, so they
 * are checked before connecting. Redirects are never followed (a 3xx is just the answer: a
 * redirect to an internal address is the classic way round a URL check). A pooled connection was
 * opened through the same checked lookup, so reusing it for the same host and port reaches the
 * same checked address.
 */
export function sendOutbound(
  request: OutboundRequest,
  options: OutboundOptions,
): Promise<OutboundAnswer> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return Promise.reject(new OutboundError(`${request.url} is not a URL`));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return Promise.reject(new OutboundError(`refusing to reach a ${url.protocol} URL`));
  }
  const kind = options.purpose ? `${options.purpose} address` : 'address';
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(hostname) !== 0;
  if (literal && !options.policy.admitsAddress(hostname)) {
    return Promise.reject(new OutboundError(`${hostname} is not an allowed ${kind}`));
  }
  const lookup = checkedLookup(
    literal || options.policy.admitsName(hostname),
    options.policy,
    kind,
  );
  const headers = { ...request.headers };
  if (request.body) headers['content-length'] = String(request.body.byteLength);
  const secure = url.protocol === 'https:';
  const transport = secure ? https : http;
  return new Promise<OutboundAnswer>((resolve, reject) => {
    const outgoing = transport.request(url, {
      method: request.method,
      headers,
      lookup,
      agent: (secure ? options.pools?.https : options.pools?.http) ?? false,
    });
    const deadline = setTimeout(() => {
      outgoing.destroy(
        new OutboundError(`${url.host} did not answer within ${options.timeoutMs} ms`),
      );
    }, options.timeoutMs);
    const fail = (error: Error) => {
      clearTimeout(deadline);
      reject(error instanceof OutboundError ? error : new OutboundError(error.message));
    };
    outgoing.on('error', fail);
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      let settled = false;
      const finish = () => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        const lines: [string, string][] = [];
        const raw = incoming.rawHeaders;
        for (let i = 0; i + 1 < raw.length; i += 2) {
          lines.push([(raw[i] ?? '').toLowerCase(), raw[i + 1] ?? '']);
        }
        resolve({ status: incoming.statusCode ?? 0, headers: lines, body: Buffer.concat(chunks) });
      };
      incoming.on('data', (chunk: Buffer) => {
        if (settled) return;
        const room = options.maxBodyBytes - kept;
        if (chunk.length <= room) {
          chunks.push(chunk);
          kept += chunk.length;
          return;
        }
        // Past the cap the connection is cut, so it never returns to a pool.
        incoming.destroy();
        if (options.overflow === 'fail') {
          settled = true;
          fail(new OutboundError(`the answer from ${url.host} is too large`));
          return;
        }
        chunks.push(chunk.subarray(0, room));
        kept += room;
        finish();
      });
      incoming.on('end', finish);
      incoming.on('error', (error) => {
        if (!settled) fail(error);
      });
    });
    outgoing.end(request.body);
  });
}

/**
 * A DNS lookup that hands the socket only addresses the policy admits. A name admitted by name
 * (`*.example.com` in an allowlist) may connect wherever it resolves.
 */
function checkedLookup(byName: boolean, policy: AddressPolicy, kind: string): typeof dnsLookup {
  return ((
    name: string,
    lookupOptions: object,
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    dnsLookup(name, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const usable = byName
        ? addresses
        : addresses.filter((entry) => policy.admitsAddress(entry.address));
      if (usable.length === 0) {
        return callback(new OutboundError(`${name} resolves to no allowed ${kind}`), []);
      }
      if ((lookupOptions as { all?: boolean }).all) return callback(null, usable);
      const first = usable[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  }) as typeof dnsLookup;
}
