import type { Config } from '../../config/config.ts';
import { isLoopbackUrl } from '../../lib/host-allowlist.ts';
import type { ActorKeys } from './actor-keys.ts';
import type { ActorUrls } from './actor-urls.ts';
import { Delivery } from './delivery.ts';
import { fedify } from './fedify.ts';
import type { HostPolicy } from './host-policy.ts';
import type { KyselyKvStore } from './kv.store.ts';
import { RemoteDocuments } from './remote-documents.ts';
import { createSafeFetch } from './safe-fetch.ts';

/** What federation reaches other servers through: one guarded fetch, and its users. */
export type FederationNetwork = {
  /** Remote documents, fetched signed by the instance's key and kept. */
  readonly documents: RemoteDocuments;
  /** Signed deliveries of queued activities. */
  readonly delivery: Delivery;
  /** Whether actors and documents may be named by `http:` URLs (private or loopback setups). */
  readonly allowHttp: boolean;
};

/**
 * Builds federation's way out. Invariant: federation reaches this machine's loopback addresses
 * only when the instance's own base URL is loopback (as `serve` derives it when
 * service.base-url is unset). Then only someone on this machine can reach the instance at all,
 * so it can make Kiln fetch nothing they could not fetch themselves; a public base URL keeps
 * loopback refused.
 */
export function federationNetwork(deps: {
  readonly config: Config;
  readonly baseUrl: URL;
  /** The actors' keys: the instance's signs fetches, each actor's its deliveries. */
  readonly keys: ActorKeys;
  readonly urls: ActorUrls;
  readonly kv: KyselyKvStore;
  readonly hosts: HostPolicy;
  readonly userAgent: string;
}): FederationNetwork {
  const { federation } = deps.config;
  const loopbackOnly = isLoopbackUrl(deps.baseUrl);
  const fetch = createSafeFetch({
    allowPrivateAddresses: federation.allowPrivateAddresses,
    allowLoopback: loopbackOnly,
  });
  const { keys } = deps;
  const instanceKeyId = new URL(`${deps.urls.instance()}#main-key`);
  const documents = new RemoteDocuments(deps.kv, fetch, deps.userAgent, async (request) => {
    const { signRequest } = await fedify();
    const { privateKey } = (await keys.get('instance')).rsa;
    return signRequest(request, privateKey, instanceKeyId, {
      spec: 'draft-cavage-http-signatures-12',
    });
  });
  const delivery = new Delivery({
    keys,
    kv: deps.kv,
    fetch,
    hosts: deps.hosts,
    giveUpAfterMs: federation.giveUpAfterMs,
    userAgent: deps.userAgent,
  });
  return {
    documents,
    delivery,
    allowHttp: federation.allowPrivateAddresses || loopbackOnly,
  };
}
