import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import https from 'node:https';
import { isIP } from 'node:net';
import { isValidPublicIPv4Address, isValidPublicIPv6Address } from '@fedify/fedify';
import { http } from '../../lib/node-http.ts';

/** A fetch that only reaches public addresses unless told otherwise (tests). */
export type SafeFetch = (request: Request) => Promise<Response>;

export type SafeFetchOptions = {
  readonly allowPrivateAddresses: boolean;
  /** Larger answers are cut off and fail; actors and activities are a few kilobytes. */
  readonly maxBodyBytes?: number;
  readonly timeoutMs?: number;
};

/** A remote server could not be reached, or answered with something unusable. */
export class RemoteFetchError extends Error {}

function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return isValidPublicIPv4Address(address);
  if (family === 6) return isValidPublicIPv6Address(address);
  return false;
}

/**
 * Builds the one function federation uses to reach other servers. The address check happens
 * when the connection is made (in the socket's DNS lookup), not on the URL beforehand, so a name
 * that resolves to a public address when checked and to 127.0.0.1 when connecting (DNS
 * rebinding) is still refused; literal IP addresses are checked the same way. Redirects are not
 * followed: ActivityPub ids are canonical, and a redirect to an internal address is the classic
 * way round a URL check.
 */
export function createSafeFetch(options: SafeFetchOptions): SafeFetch {
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const lookup: typeof dnsLookup = ((
    hostname: string,
    lookupOptions: object,
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const usable = options.allowPrivateAddresses
        ? addresses
        : addresses.filter((entry) => isPublicAddress(entry.address));
      if (usable.length === 0) {
        return callback(new RemoteFetchError(`${hostname} has no public address`), []);
      }
      if ((lookupOptions as { all?: boolean }).all) return callback(null, usable);
      const first = usable[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  }) as typeof dnsLookup;

  return async (request) => {
    const url = new URL(request.url);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new RemoteFetchError(`refusing to fetch ${url.protocol} URLs`);
    }
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(literal) && !options.allowPrivateAddresses && !isPublicAddress(literal)) {
      throw new RemoteFetchError(`refusing to fetch private address ${literal}`);
    }
    const body =
      request.method === 'GET' || request.method === 'HEAD'
        ? undefined
        : Buffer.from(await request.arrayBuffer());
    const headers: Record<string, string> = {};
    request.headers.forEach((value, key) => {
      headers[key] = value;
    });
    if (body) headers['content-length'] = String(body.length);
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise<Response>((resolve, reject) => {
      const outgoing = transport.request(
        url,
        { method: request.method, headers, lookup, timeout: timeoutMs },
        (incoming) => {
          const chunks: Buffer[] = [];
          let size = 0;
          incoming.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxBodyBytes) {
              incoming.destroy(new RemoteFetchError(`answer from ${url.host} is too large`));
              return;
            }
            chunks.push(chunk);
          });
          incoming.on('error', reject);
          incoming.on('end', () => {
            const responseHeaders = new Headers();
            for (const [key, value] of Object.entries(incoming.headers)) {
              if (value === undefined) continue;
              for (const one of Array.isArray(value) ? value : [value]) {
                responseHeaders.append(key, one);
              }
            }
            const status = incoming.statusCode ?? 502;
            const nullBody = status === 204 || status === 304 || request.method === 'HEAD';
            resolve(
              new Response(nullBody ? null : Buffer.concat(chunks), {
                status,
                headers: responseHeaders,
              }),
            );
          });
        },
      );
      outgoing.on('timeout', () =>
        outgoing.destroy(new RemoteFetchError(`${url.host} did not answer in time`)),
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  };
}
