import type { DocumentLoader, RemoteDocument } from '@fedify/fedify';
import { fedify } from './fedify.ts';
import { FORGEFED_CONTEXT, FORGEFED_CONTEXT_DOCUMENT } from './forgefed-context.ts';
import type { KyselyKvStore } from './kv.store.ts';
import { RemoteFetchError, type SafeFetch } from './safe-fetch.ts';

const ACCEPT =
  'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"';
const CACHE_TTL_MS = 3_600_000;
/** A document is fetched afresh on a failed signature at most this often. */
const REFETCH_EVERY_MS = 60_000;

type Cached = { readonly remote: RemoteDocument; readonly fetchedAt: number };

/** Signs an outgoing GET (with the instance actor's key), for servers that require it. */
export type SignFetch = (request: Request) => Promise<Request>;

/**
 * Loads remote ActivityPub documents (actors, their keys) through the safe fetch, keeping each
 * for an hour in the shared key-value store, so a busy inbox does not fetch the same actor for
 * every activity. `forget` drops one: when a signature fails against a cached key, the actor is
 * fetched afresh once (the remote may have rotated its key). Every GET is signed by the
 * instance actor (authorized fetch): servers in Mastodon's secure mode refuse unsigned ones, and
 * the instance actor is the one document such servers serve unsigned, so verifying it never loops.
 */
export class RemoteDocuments {
  readonly #kv: KyselyKvStore;
  readonly #fetch: SafeFetch;
  readonly #userAgent: string;
  readonly #sign: SignFetch;

  constructor(kv: KyselyKvStore, fetch: SafeFetch, userAgent: string, sign: SignFetch) {
    this.#kv = kv;
    this.#fetch = fetch;
    this.#userAgent = userAgent;
    this.#sign = sign;
  }

  /** Contexts are served from memory only; nothing fetches a context over the network. */
  readonly contextLoader: DocumentLoader = async (url) => {
    const { preloadedContexts } = await fedify();
    const known =
      url === FORGEFED_CONTEXT || url === `${FORGEFED_CONTEXT}#`
        ? FORGEFED_CONTEXT_DOCUMENT
        : preloadedContexts[url];
    if (known === undefined) throw new RemoteFetchError(`unknown JSON-LD context ${url}`);
    return { contextUrl: null, documentUrl: url, document: known };
  };

  /** A document loader for Fedify: contexts from memory, anything else fetched and cached. */
  readonly loader: DocumentLoader = async (url) => {
    const { preloadedContexts } = await fedify();
    if (url === FORGEFED_CONTEXT || url in preloadedContexts) return this.contextLoader(url);
    const documentUrl = withoutFragment(url);
    const cached = await this.#kv.get<Cached>(['document', documentUrl]);
    if (cached) return cached.remote;
    const document = await this.fetchJson(documentUrl);
    const remote: RemoteDocument = { contextUrl: null, documentUrl, document };
    await this.#kv.setFor(
      ['document', documentUrl],
      { remote, fetchedAt: Date.now() },
      CACHE_TTL_MS,
    );
    return remote;
  };

  /** Fetches one JSON document without the cache. */
  async fetchJson(url: string): Promise<unknown> {
    const request = new Request(url, {
      headers: { accept: ACCEPT, 'user-agent': this.#userAgent },
    });
    const response = await this.#fetch(await this.#sign(request));
    if (!response.ok) throw new RemoteFetchError(`${url} answered ${response.status}`);
    try {
      return await response.json();
    } catch (error) {
      throw new RemoteFetchError(`${url} is not JSON`, { cause: error });
    }
  }

  /**
   * Drops a cached document so that it is fetched again, at most once a minute per document: a
   * stream of badly signed requests must not make Kiln fetch the same actor for each. Returns
   * whether it was dropped.
   */
  async forget(url: string): Promise<boolean> {
    const documentUrl = withoutFragment(url);
    if (!(await this.#kv.get(['document', documentUrl]))) return false;
    // An expired entry reads as absent. Two replicas racing here refetch twice, which is harmless.
    if ((await this.#kv.get(['refetched', documentUrl])) !== undefined) return false;
    await this.#kv.setFor(['refetched', documentUrl], Date.now(), REFETCH_EVERY_MS);
    await this.#kv.delete(['document', documentUrl]);
    return true;
  }
}

function withoutFragment(url: string): string {
  const at = url.indexOf('#');
  return at < 0 ? url : url.slice(0, at);
}
