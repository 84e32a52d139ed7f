import type { RemoteFetchOptions } from '../../git/remote-fetch.ts';
import { pinCloneAddress } from '../../outbound/clone-address.ts';
import { Invalid, isDomainError } from '../errors.ts';

/**
 * How git may reach another server's clone address: its scheme allowed, its address checked and
 * pinned, and every copy capped at `maxBytes` (0: no cap), so neither a fork nor a sync can make
 * Kiln keep more than that for the other server.
 */
export async function reachClone(
  cloneUri: string,
  allowHttp: boolean,
  maxBytes: number,
): Promise<RemoteFetchOptions> {
  const pinned = await pinCloneAddress(cloneUri, allowHttp).catch((error: unknown) => {
    throw new Invalid(`${cloneUri} is not an address Kiln may fetch from`, { cause: error });
  });
  return { allowHttp, pinned, maxBytes };
}

/**
 * A failed copy as the user hears of it: past the cap it says so (413); anything else is the
 * other server's doing, `Invalid` with `message`.
 */
export function copyFailure(message: string, error: unknown): Error {
  if (isDomainError(error) && error.code === 'too_large') return error;
  return new Invalid(message, { cause: error });
}
