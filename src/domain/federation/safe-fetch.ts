import { HostAllowlist } from '../../lib/host-allowlist.ts';
import { OutboundError, sendOutbound } from '../../outbound/outbound-request.ts';

/** A fetch that only reaches public addresses unless told otherwise (tests). */
export type SafeFetch = (request: Request) => Promise<Response>;

export type SafeFetchOptions = {
  readonly allowPrivateAddresses: boolean;
  /** Loopback addresses only (an instance whose own base URL is loopback: see Federation). */
  readonly allowLoopback?: boolean;
  /** Larger answers are cut off and fail; actors and activities are a few kilobytes. */
  readonly maxBodyBytes?: number;
  readonly timeoutMs?: number;
};

/** A remote server could not be reached, or answered with something unusable. */
export class RemoteFetchError extends Error {}

/**
 * The one fetch federation uses to reach other servers, over the server's outbound client
 * (src/outbound/): the address is checked where the socket connects, so DNS rebinding is refused,
 * and redirects are not followed — ActivityPub ids are canonical. Only global addresses are
 * reached unless `allowPrivateAddresses` (tests) says otherwise.
 */
export function createSafeFetch(options: SafeFetchOptions): SafeFetch {
  const policy = new HostAllowlist(
    options.allowPrivateAddresses
      ? ['*']
      : options.allowLoopback
        ? ['external', 'loopback']
        : ['external'],
  );
  const limits = {
    policy,
    maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
    timeoutMs: options.timeoutMs ?? 10_000,
    overflow: 'fail',
  } as const;
  return async (request) => {
    const body =
      request.method === 'GET' || request.method === 'HEAD'
        ? undefined
        : new Uint8Array(await request.arrayBuffer());
    const headers: Record<string, string> = {};
    request.headers.forEach((value, key) => {
      headers[key] = value;
    });
    let answer: Awaited<ReturnType<typeof sendOutbound>>;
    try {
      answer = await sendOutbound(
        { url: request.url, method: request.method, headers, body },
        limits,
      );
    } catch (error) {
      throw error instanceof OutboundError ? new RemoteFetchError(error.message) : error;
    }
    const responseHeaders = new Headers();
    for (const [name, value] of answer.headers) responseHeaders.append(name, value);
    const status = answer.status >= 200 && answer.status <= 599 ? answer.status : 502;
    const nullBody = status === 204 || status === 304 || request.method === 'HEAD';
    return new Response(nullBody ? null : answer.body, { status, headers: responseHeaders });
  };
}
