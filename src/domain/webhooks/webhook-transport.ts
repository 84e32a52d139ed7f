import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import https from 'node:https';
import { isIP } from 'node:net';
import type { HostAllowlist } from '../../lib/host-allowlist.ts';
import { type HttpAgent, http } from '../../lib/node-http.ts';

/** A request to one receiver, fully built and signed. */
export type OutgoingRequest = {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
};

/** What came back: the status, the headers, and at most `maxBodyBytes` of the body. */
export type ReceivedAnswer = {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
};

export type TransportOptions = {
  readonly allowlist: HostAllowlist;
  /**
   * Keep-alive connection pools (one per scheme). A pooled connection was opened through the
   * checked lookup below, so reusing it for the same host and port reaches the same checked
   * address; without pools every request opens its own connection.
   */
  readonly agents?: { readonly http: HttpAgent; readonly https: https.Agent };
  readonly timeoutMs: number;
  readonly maxBodyBytes: number;
};

/** The receiver could not be reached, was refused by the allowlist, or took too long. */
export class DeliveryError extends Error {}

/**
 * Sends one webhook request. The allowlist is applied to the address the socket connects to,
 * inside the connection's own DNS lookup: a name that resolved to a public address when the hook
 * was saved and to 127.0.0.1 now (DNS rebinding) is refused, and the checked address is the one
 * connected to. Literal addresses skip DNS, so they are checked before connecting. Redirects are
 * never followed (a 3xx is just the answer), and the timeout covers the whole exchange, so a
 * receiver that trickles bytes cannot hold a delivery slot.
 */
export function sendWebhookRequest(
  request: OutgoingRequest,
  options: TransportOptions,
): Promise<ReceivedAnswer> {
  const url = new URL(request.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return Promise.reject(new DeliveryError(`refusing to deliver to a ${url.protocol} URL`));
  }
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const byName = isIP(hostname) === 0 && options.allowlist.admitsName(hostname);
  if (isIP(hostname) !== 0 && !options.allowlist.admitsAddress(hostname)) {
    return Promise.reject(new DeliveryError(`${hostname} is not an allowed webhook address`));
  }
  const lookup = ((
    name: string,
    lookupOptions: object,
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    dnsLookup(name, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const usable = byName
        ? addresses
        : addresses.filter((entry) => options.allowlist.admitsAddress(entry.address));
      if (usable.length === 0) {
        return callback(new DeliveryError(`${name} resolves to no allowed webhook address`), []);
      }
      if ((lookupOptions as { all?: boolean }).all) return callback(null, usable);
      const first = usable[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  }) as typeof dnsLookup;
  const body = Buffer.from(request.body, 'utf8');
  const headers = { ...request.headers, 'content-length': String(body.length) };
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<ReceivedAnswer>((resolve, reject) => {
    const outgoing = transport.request(url, {
      method: request.method,
      headers,
      lookup,
      agent: (url.protocol === 'https:' ? options.agents?.https : options.agents?.http) ?? false,
    });
    const deadline = setTimeout(() => {
      outgoing.destroy(new DeliveryError(`no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    const fail = (error: Error) => {
      clearTimeout(deadline);
      reject(error instanceof DeliveryError ? error : new DeliveryError(error.message));
    };
    outgoing.on('error', fail);
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      const finish = () => {
        clearTimeout(deadline);
        const answerHeaders: Record<string, string> = {};
        for (const [key, value] of Object.entries(incoming.headers)) {
          if (value !== undefined)
            answerHeaders[key] = Array.isArray(value) ? value.join(', ') : value;
        }
        resolve({
          status: incoming.statusCode ?? 0,
          headers: answerHeaders,
          body: Buffer.concat(chunks).toString('utf8'),
        });
      };
      incoming.on('data', (chunk: Buffer) => {
        if (kept >= options.maxBodyBytes) return;
        // (Past the cap the connection is destroyed below, so it never returns to a pool.)
        const room = options.maxBodyBytes - kept;
        const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
        chunks.push(part);
        kept += part.length;
        // Enough kept: the rest of a large answer is not waited for.
        if (kept >= options.maxBodyBytes) {
          incoming.destroy();
          finish();
        }
      });
      incoming.on('end', finish);
      incoming.on('error', fail);
    });
    outgoing.end(body);
  });
}
