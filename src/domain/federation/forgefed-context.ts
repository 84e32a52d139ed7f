/** ForgeFed's JSON-LD context URL; its terms sit beside ActivityStreams' in Kiln's documents. */
export const FORGEFED_CONTEXT = 'https://forgefed.org/ns';

/** ActivityStreams, the security vocabulary (public keys) and ForgeFed, in that order. */
export const ACTOR_CONTEXT = [
  'https://www.w3.org/ns/activitystreams',
  'https://w3id.org/security/v1',
  FORGEFED_CONTEXT,
] as const;

/**
 * The ForgeFed terms Kiln uses, as a JSON-LD context. Served to the JSON-LD processor from
 * memory, so reading a ForgeFed actor never needs forgefed.org to be reachable (and a server
 * with no route to it still verifies signatures from other forges).
 */
export const FORGEFED_CONTEXT_DOCUMENT = {
  '@context': {
    forge: 'https://forgefed.org/ns#',
    Repository: 'forge:Repository',
    Push: 'forge:Push',
    Commit: 'forge:Commit',
    Branch: 'forge:Branch',
    Ticket: 'forge:Ticket',
    Patch: 'forge:Patch',
    cloneUri: { '@id': 'forge:cloneUri', '@type': '@id' },
    pushUri: { '@id': 'forge:pushUri', '@type': '@id' },
    forks: { '@id': 'forge:forks', '@type': '@id' },
    forkedFrom: { '@id': 'forge:forkedFrom', '@type': '@id' },
    team: { '@id': 'forge:team', '@type': '@id' },
    ticketsTrackedBy: { '@id': 'forge:ticketsTrackedBy', '@type': '@id' },
    sendPatchesTo: { '@id': 'forge:sendPatchesTo', '@type': '@id' },
    hash: 'forge:hash',
    ref: 'forge:ref',
    committedBy: { '@id': 'forge:committedBy', '@type': '@id' },
    committed: { '@id': 'forge:committed', '@type': 'http://www.w3.org/2001/XMLSchema#dateTime' },
    created: { '@id': 'forge:created', '@type': 'http://www.w3.org/2001/XMLSchema#dateTime' },
    description: 'forge:description',
  },
} as const;
