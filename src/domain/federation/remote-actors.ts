import { isRecord } from '../../lib/narrow.ts';
import type { RemoteDocuments } from './remote-documents.ts';
import { RemoteFetchError } from './safe-fetch.ts';

/** What Kiln keeps of a remote actor: where to deliver to it. */
export type RemoteActor = {
  readonly id: string;
  readonly inbox: string;
  readonly sharedInbox: string | null;
  readonly host: string;
};

/** The id of an object that may be given inline or by reference. */
export function idOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  return isRecord(value) && typeof value.id === 'string' ? value.id : undefined;
}

function httpUrl(value: unknown): string | undefined {
  return typeof value === 'string' &&
    URL.canParse(value) &&
    /^https?:$/.test(new URL(value).protocol)
    ? value
    : undefined;
}

/**
 * Remote actors, read through the cached document loader. An actor whose document does not name
 * itself by the id it was fetched under, or whose inbox lives on another host, is refused: either
 * would let one server speak for, or aim deliveries at, another.
 */
export class RemoteActors {
  readonly #documents: RemoteDocuments;

  constructor(documents: RemoteDocuments) {
    this.#documents = documents;
  }

  async get(id: string): Promise<RemoteActor> {
    const { document } = await this.#documents.loader(id);
    const actor = isRecord(document) ? document : {};
    if (idOf(actor) !== id) throw new RemoteFetchError(`${id} names itself ${String(actor.id)}`);
    const host = new URL(id).host;
    const inbox = httpUrl(actor.inbox);
    if (!inbox || new URL(inbox).host !== host) {
      throw new RemoteFetchError(`${id} has no inbox of its own`);
    }
    const shared = httpUrl(isRecord(actor.endpoints) ? actor.endpoints.sharedInbox : undefined);
    return {
      id,
      inbox,
      sharedInbox: shared && new URL(shared).host === host ? shared : null,
      host,
    };
  }
}
