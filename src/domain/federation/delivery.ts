import type { ActorKeys } from './actor-keys.ts';
import { fedify } from './fedify.ts';
import type { HostPolicy } from './host-policy.ts';
import type { KyselyKvStore } from './kv.store.ts';
import type { SafeFetch } from './safe-fetch.ts';

/** One activity on its way to one inbox: what the queue carries. */
export type DeliveryMessage = {
  readonly kind: 'deliver';
  /** Storage key of the signing local actor (`user:<id>`, `repo:<id>`, `instance`). */
  readonly signer: string;
  /** The signer's actor id; its key id is `<id>#main-key`. */
  readonly signerId: string;
  readonly inbox: string;
  readonly activity: object;
};

/** What became of one attempt. */
export type DeliveryOutcome = 'delivered' | 'dropped' | 'retry';

const CONTENT_TYPE = 'application/activity+json';

/**
 * Signs and posts activities. Signatures are draft-cavage HTTP Signatures first (what every
 * fediverse server reads); a server that refuses one (400 or 401) is asked again with an RFC 9421
 * signature — Fedify's "double knock" — and the kind that worked is remembered per origin. A
 * server that has failed every delivery for `giveUpAfterMs` is given up on; the first success
 * clears that.
 */
export class Delivery {
  readonly #keys: ActorKeys;
  readonly #kv: KyselyKvStore;
  readonly #fetch: SafeFetch;
  readonly #hosts: HostPolicy;
  readonly #giveUpAfterMs: number;
  readonly #userAgent: string;

  constructor(deps: {
    keys: ActorKeys;
    kv: KyselyKvStore;
    fetch: SafeFetch;
    hosts: HostPolicy;
    giveUpAfterMs: number;
    userAgent: string;
  }) {
    this.#keys = deps.keys;
    this.#kv = deps.kv;
    this.#fetch = deps.fetch;
    this.#hosts = deps.hosts;
    this.#giveUpAfterMs = deps.giveUpAfterMs;
    this.#userAgent = deps.userAgent;
  }

  async deliver(message: DeliveryMessage): Promise<DeliveryOutcome> {
    const target = new URL(message.inbox);
    if (!this.#hosts.permits(target.host)) return 'dropped';
    const failingSince = await this.#kv.get<number>(['host-failing', target.host]);
    if (failingSince !== undefined && Date.now() - failingSince > this.#giveUpAfterMs) {
      return 'dropped';
    }
    const bytes = new TextEncoder().encode(JSON.stringify(message.activity));
    const body = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    let status: number;
    try {
      status = await this.#post(message, target, body);
    } catch {
      await this.#failing(target.host);
      return 'retry';
    }
    if (status >= 200 && status < 300) {
      if (failingSince !== undefined) await this.#kv.delete(['host-failing', target.host]);
      return 'delivered';
    }
    // A server error or rate limit may pass; any other refusal will not.
    if (status >= 500 || status === 429 || status === 408) {
      await this.#failing(target.host);
      return 'retry';
    }
    return 'dropped';
  }

  async #post(message: DeliveryMessage, target: URL, body: ArrayBuffer): Promise<number> {
    const keys = await this.#keys.get(message.signer);
    const { signRequest } = await fedify();
    const keyId = new URL(`${message.signerId}#main-key`);
    const preferred = await this.#kv.get<string>(['signature-spec', target.origin]);
    const first = preferred === 'rfc9421' ? 'rfc9421' : 'draft-cavage-http-signatures-12';
    const attempt = async (spec: 'rfc9421' | 'draft-cavage-http-signatures-12') => {
      const request = new Request(target, {
        method: 'POST',
        headers: {
          'content-type': CONTENT_TYPE,
          accept: CONTENT_TYPE,
          'user-agent': this.#userAgent,
        },
        body,
      });
      const signed = await signRequest(request, keys.rsa.privateKey, keyId, {
        spec,
        body,
      });
      const response = await this.#fetch(signed);
      await response.arrayBuffer().catch(() => undefined);
      return response.status;
    };
    const status = await attempt(first);
    if (status !== 400 && status !== 401) return status;
    const other = first === 'rfc9421' ? 'draft-cavage-http-signatures-12' : 'rfc9421';
    const second = await attempt(other);
    if (second >= 200 && second < 300) {
      await this.#kv.setFor(
        ['signature-spec', target.origin],
        other === 'rfc9421' ? 'rfc9421' : 'draft-cavage',
        null,
      );
    }
    return second;
  }

  /** Notes when a host started failing (kept, not moved, while it keeps failing). */
  async #failing(host: string): Promise<void> {
    await this.#kv.cas(['host-failing', host], undefined, Date.now());
  }
}
