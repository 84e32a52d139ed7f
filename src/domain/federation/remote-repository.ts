import { Invalid } from '../errors.ts';
import type { LocalActor, LocalActors } from './local-actors.ts';
import { idOf } from './remote-actors.ts';
import type { RemoteDocuments } from './remote-documents.ts';

/** What a fork needs of a remote ForgeFed `Repository` actor. */
export type RemoteRepository = {
  readonly id: string;
  /** Where its git lives: on the actor's own host. */
  readonly cloneUri: string;
  readonly name: string;
  readonly summary: string;
};

/** The `type` of an ActivityStreams object, as a list (it may be one or several). */
export function typesOf(document: Record<string, unknown>): readonly unknown[] {
  return Array.isArray(document.type) ? document.type : [document.type];
}

/** Whether two URLs are on one host (and port). */
export function sameHost(a: string, b: string): boolean {
  return URL.canParse(a) && URL.canParse(b) && new URL(a).host === new URL(b).host;
}

/**
 * Reads the remote `Repository` actor `id`: it must name itself by that id and give a clone
 * address on its own host (another host's address would let one server aim Kiln's fetches at a
 * third). Invalid otherwise, with the reason.
 */
export async function readRemoteRepository(
  documents: RemoteDocuments,
  id: string,
): Promise<RemoteRepository> {
  const { document } = await documents.loader(id).catch((error: unknown) => {
    throw new Invalid(`${id} could not be read`, { cause: error });
  });
  const actor = document as Record<string, unknown>;
  if (idOf(actor) !== id || !typesOf(actor).includes('Repository')) {
    throw new Invalid(`${id} is not a repository`);
  }
  const cloneUri = [actor.cloneUri].flat().find((uri) => typeof uri === 'string');
  if (typeof cloneUri !== 'string' || !sameHost(cloneUri, id)) {
    throw new Invalid(`${id} has no clone address on its own server`);
  }
  const name = typeof actor.name === 'string' ? actor.name : '';
  const summary = typeof actor.summary === 'string' ? actor.summary.slice(0, 2048) : '';
  return { id, cloneUri, name: name || (new URL(id).pathname.split('/').pop() ?? ''), summary };
}

/**
 * The fork a `Create` from `sender` announces, when it is one of one of our public repositories:
 * the object is a `Repository` on the sender's own host naming ours as `forkedFrom`, and the
 * fork's actor, read from its server, says the same. A fork that cannot be read is no fork: the
 * claim alone proves nothing.
 */
export async function forkOfOurs(
  deps: { readonly actors: LocalActors; readonly documents: RemoteDocuments },
  sender: string,
  activity: Record<string, unknown>,
): Promise<{ upstream: Extract<LocalActor, { kind: 'repo' }>; forkId: string } | undefined> {
  const object = activity.object;
  if (!object || typeof object !== 'object') return undefined;
  const fork = object as Record<string, unknown>;
  const forkId = idOf(fork);
  if (!forkId || !typesOf(fork).includes('Repository') || !sameHost(forkId, sender))
    return undefined;
  const ref = deps.actors.urls.parse(idOf(fork.forkedFrom) ?? '');
  if (ref?.kind !== 'repo') return undefined;
  const upstream = await deps.actors.get(ref).catch(() => undefined);
  if (upstream?.kind !== 'repo') return undefined;
  const read = await deps.documents.loader(forkId).then(
    ({ document }) => document as Record<string, unknown>,
    () => ({}) as Record<string, unknown>,
  );
  if (idOf(read) !== forkId || idOf(read.forkedFrom) !== upstream.id) return undefined;
  return { upstream, forkId };
}
