import { isRecord } from '../../lib/narrow.ts';
import { ACTOR_CONTEXT, FORGEFED_CONTEXT } from './forgefed-context.ts';

/**
 * JSON-LD documents Kiln publishes, built by hand: Fedify's vocabulary has no ForgeFed types
 * (`Repository`, `Push`, `Commit`, `Branch`). Pure functions of their inputs.
 */

export const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
const AS_CONTEXT = 'https://www.w3.org/ns/activitystreams';
const MULTIKEY_CONTEXT = 'https://w3id.org/security/data-integrity/v1';

/** The public keys an actor document carries. */
export type PublicKeys = {
  readonly rsaPem: string;
  readonly ed25519Multibase: string;
};

/** What every actor document shares. */
export type ActorBase = {
  readonly id: string;
  readonly inbox: string;
  readonly outbox: string;
  readonly followers: string;
  readonly sharedInbox: string;
  readonly keys: PublicKeys;
};

function actorCommon(actor: ActorBase) {
  return {
    id: actor.id,
    inbox: actor.inbox,
    outbox: actor.outbox,
    followers: actor.followers,
    endpoints: { sharedInbox: actor.sharedInbox },
    publicKey: { id: `${actor.id}#main-key`, owner: actor.id, publicKeyPem: actor.keys.rsaPem },
    assertionMethod: [
      {
        id: `${actor.id}#ed25519-key`,
        type: 'Multikey',
        controller: actor.id,
        publicKeyMultibase: actor.keys.ed25519Multibase,
      },
    ],
    manuallyApprovesFollowers: false,
  };
}

/** A user (`Person`) or an organisation (`Organization`, as Mastodon and Forgejo read it). */
export function personDocument(
  actor: ActorBase,
  account: { kind: 'user' | 'org'; handle: string; fullName: string; description: string },
) {
  return {
    '@context': [...ACTOR_CONTEXT, MULTIKEY_CONTEXT],
    type: account.kind === 'org' ? 'Organization' : 'Person',
    ...actorCommon(actor),
    preferredUsername: account.handle,
    name: account.fullName || account.handle,
    summary: account.description,
    url: actor.id,
    discoverable: true,
  };
}

/** A ForgeFed `Repository` actor. */
export function repositoryDocument(
  actor: ActorBase,
  repo: {
    name: string;
    description: string;
    ownerId: string;
    cloneUri: string;
    forkedFrom: string | null;
    /** The collection of the forks other servers made of it. */
    forks: string;
  },
) {
  return {
    '@context': [...ACTOR_CONTEXT, MULTIKEY_CONTEXT],
    // ForgeFed's type, plus `Service` from ActivityStreams: Mastodon and Fedify-based servers
    // only follow, and only take signatures from, actors of a type they know.
    type: ['Repository', 'Service'],
    ...actorCommon(actor),
    preferredUsername: repo.name,
    name: repo.name,
    summary: repo.description,
    url: actor.id,
    attributedTo: repo.ownerId,
    team: repo.ownerId,
    cloneUri: repo.cloneUri,
    // Pull requests are proposed to the repository itself (`Offer{Ticket}` to its inbox).
    sendPatchesTo: actor.id,
    forks: repo.forks,
    ...(repo.forkedFrom ? { forkedFrom: repo.forkedFrom } : {}),
  };
}

/** The instance actor (`Application`), which signs on behalf of the server itself. */
export function instanceDocument(actor: ActorBase, host: string) {
  return {
    '@context': [...ACTOR_CONTEXT, MULTIKEY_CONTEXT],
    type: 'Application',
    ...actorCommon(actor),
    preferredUsername: host,
    name: 'Kiln',
    manuallyApprovesFollowers: true,
  };
}

/** One commit of a `Push`, as ForgeFed describes it. */
export type PushedCommit = {
  readonly id: string;
  readonly sha: string;
  readonly message: string;
  readonly authorName: string;
  readonly created: Date;
  readonly committed: Date;
};

/** ForgeFed `Push`: published by the repository, on behalf of the pusher. */
export function pushActivity(input: {
  id: string;
  repo: string;
  followers: string;
  pusher: string;
  branch: { id: string; name: string; ref: string };
  commits: readonly PushedCommit[];
  totalCommits: number;
  published: Date;
}) {
  return {
    '@context': [AS_CONTEXT, FORGEFED_CONTEXT],
    id: input.id,
    type: 'Push',
    actor: input.repo,
    attributedTo: input.pusher,
    context: input.repo,
    to: [PUBLIC],
    cc: [input.followers],
    published: input.published.toISOString(),
    summary: `${input.totalCommits} commit${input.totalCommits === 1 ? '' : 's'} pushed to ${input.branch.name}`,
    target: {
      type: 'Branch',
      id: input.branch.id,
      name: input.branch.name,
      ref: input.branch.ref,
      context: input.repo,
    },
    object: {
      type: 'OrderedCollection',
      totalItems: input.totalCommits,
      orderedItems: input.commits.map((commit) => {
        const [summary = '', ...rest] = commit.message.split('\n');
        return {
          type: 'Commit',
          id: commit.id,
          context: input.repo,
          attributedTo: input.pusher,
          hash: commit.sha,
          summary,
          description: rest.join('\n').trim(),
          created: commit.created.toISOString(),
          committed: commit.committed.toISOString(),
        };
      }),
    },
  };
}

/** `Create{Note}`: what Mastodon-like servers show in a timeline. */
export function noteActivity(input: {
  id: string;
  actor: string;
  followers: string;
  content: string;
  url: string;
  published: Date;
  /** The repository the note is about, when it is about one (served only while it is). */
  context?: string;
}) {
  const note = {
    id: `${input.id}/note`,
    type: 'Note',
    attributedTo: input.actor,
    content: input.content,
    url: input.url,
    ...(input.context === undefined ? {} : { context: input.context }),
    published: input.published.toISOString(),
    to: [PUBLIC],
    cc: [input.followers],
  };
  return {
    '@context': AS_CONTEXT,
    id: input.id,
    type: 'Create',
    actor: input.actor,
    published: note.published,
    to: note.to,
    cc: note.cc,
    object: note,
  };
}

/**
 * `Delete` of something an actor published, or of the actor itself, as a `Tombstone`: what an
 * actor sends its followers when it, or a note of it, is no longer there for them.
 */
export function deleteActivity(input: {
  id: string;
  actor: string;
  followers: string;
  object: string;
  formerType: string;
}) {
  return {
    '@context': AS_CONTEXT,
    id: input.id,
    type: 'Delete',
    actor: input.actor,
    to: [PUBLIC],
    cc: [input.followers],
    object: { id: input.object, type: 'Tombstone', formerType: input.formerType },
  };
}

/**
 * The repository an activity is about, if it names one: a `Push`'s `context`, a note's
 * `context`, or (for notes written before notes carried one) the `url` of a note announcing a
 * new repository. An id that is no local repository's is harmless: it is looked up and
 * found to be nothing.
 */
export function subjectOf(activity: unknown): string | undefined {
  if (!isRecord(activity)) return undefined;
  if (typeof activity.context === 'string') return activity.context;
  const object = isRecord(activity.object) ? activity.object : {};
  if (typeof object.context === 'string') return object.context;
  return typeof object.url === 'string' ? object.url : undefined;
}

/** `Accept` of a follow request, embedding the request as the follower sent it. */
export function acceptActivity(id: string, actor: string, follow: unknown) {
  return { '@context': AS_CONTEXT, id, type: 'Accept', actor, object: follow };
}

/** `Reject{Follow}`: the follow is refused (the mirror of `acceptActivity`). */
export function rejectActivity(id: string, actor: string, follow: unknown) {
  return { '@context': AS_CONTEXT, id, type: 'Reject', actor, object: follow };
}

/** First page link and total of a paged collection. */
export function orderedCollection(id: string, totalItems: number) {
  return {
    '@context': AS_CONTEXT,
    id,
    type: 'OrderedCollection',
    totalItems,
    ...(totalItems > 0 ? { first: `${id}?page=1` } : { orderedItems: [] }),
  };
}

/** One page (1-based) of a paged collection. */
export function orderedCollectionPage(
  collection: string,
  page: number,
  items: readonly unknown[],
  hasNext: boolean,
) {
  return {
    '@context': AS_CONTEXT,
    id: `${collection}?page=${page}`,
    type: 'OrderedCollectionPage',
    partOf: collection,
    orderedItems: items,
    ...(hasNext ? { next: `${collection}?page=${page + 1}` } : {}),
    ...(page > 1 ? { prev: `${collection}?page=${page - 1}` } : {}),
  };
}
