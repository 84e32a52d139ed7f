import { isRecord } from '../../lib/narrow.ts';
import { ACTOR_CONTEXT } from './forgefed-context.ts';
import { idOf } from './remote-actors.ts';

/**
 * ForgeFed merge requests as Kiln sends and reads them: an `Offer` of a `Ticket` whose
 * `attachment` (itself an `Offer`) names the proposer's `Branch` as `origin`, the upstream's
 * `Branch` as `target`, and carries the commits as an `OrderedCollection` of `Patch`
 * (`application/x-git-patch`). Answered with `Accept` (`result`: the pull request's URL) or
 * `Reject` (`summary`: why). Pure functions of their inputs.
 */

/** Patches ride inside the offer up to this size; an inbox takes activities of 256 KB at most. */
export const INLINE_PATCH_BYTES = 192 * 1024;

/** A branch of a repository actor. */
export type BranchRef = { readonly repo: string; readonly branch: string };

/** A merge request as an offer carries it. */
export type PullOffer = {
  readonly id: string;
  /** The person proposing. */
  readonly actor: string;
  readonly title: string;
  readonly body: string;
  readonly origin: BranchRef;
  readonly target: BranchRef;
  /** One mailbox patch per commit, oldest first; empty when they were too large to carry. */
  readonly patches: readonly string[];
};

const BRANCH_PREFIX = 'refs/heads/';

function branchObject(ref: BranchRef) {
  return {
    type: 'Branch',
    context: ref.repo,
    name: ref.branch,
    ref: `${BRANCH_PREFIX}${ref.branch}`,
  };
}

/** Splits `git format-patch --stdout` into one patch per commit. */
export function splitPatches(mbox: string): string[] {
  return mbox.split(/^(?=From [0-9a-f]{40,64} Mon Sep 17 00:00:00 2001$)/m).filter(Boolean);
}

/** The `Offer{Ticket}` proposing `offer`, addressed to the upstream repository. */
export function offerActivity(offer: PullOffer) {
  return {
    '@context': ACTOR_CONTEXT,
    id: offer.id,
    type: 'Offer',
    actor: offer.actor,
    to: [offer.target.repo],
    target: offer.target.repo,
    object: {
      type: 'Ticket',
      attributedTo: offer.actor,
      context: offer.target.repo,
      summary: offer.title,
      content: offer.body,
      mediaType: 'text/markdown',
      attachment: branchesAndPatches(offer),
    },
  };
}

/** The ticket's attachment: the two branches and the commits as patches. */
function branchesAndPatches(change: Pick<PullOffer, 'actor' | 'origin' | 'target' | 'patches'>) {
  return {
    type: 'Offer',
    origin: branchObject(change.origin),
    target: branchObject(change.target),
    object: {
      type: 'OrderedCollection',
      itemsType: 'Patch',
      totalItems: change.patches.length,
      orderedItems: change.patches.map((content) => ({
        type: 'Patch',
        attributedTo: change.actor,
        mediaType: 'application/x-git-patch',
        content,
      })),
    },
  };
}

/** New commits on a proposed branch, as its proposer tells the upstream. */
export type TicketUpdate = Omit<PullOffer, 'title' | 'body'> & {
  /** The pull request's URL upstream once accepted, else the id of the offer that proposed it. */
  readonly ticket: string;
};

/**
 * `Update` of the proposed `Ticket`, sent by its proposer after a push to the proposed branch:
 * the ticket's attachment carries the branches and the patches anew, as in the offer.
 */
export function updateActivity(update: TicketUpdate) {
  return {
    '@context': ACTOR_CONTEXT,
    id: update.id,
    type: 'Update',
    actor: update.actor,
    to: [update.target.repo],
    object: {
      id: update.ticket,
      type: 'Ticket',
      attributedTo: update.actor,
      context: update.target.repo,
      attachment: branchesAndPatches(update),
    },
  };
}

/** `Accept` of an offer: the pull request it opened is at `result`. */
export function acceptOfferActivity(id: string, actor: string, offer: PullOffer, result: string) {
  return {
    '@context': ACTOR_CONTEXT,
    id,
    type: 'Accept',
    actor,
    to: [offer.actor],
    object: offer.id,
    result,
  };
}

/** `Reject` of an offer, with the reason a person can act on. */
export function rejectOfferActivity(
  id: string,
  actor: string,
  to: string,
  offerId: string,
  summary: string,
) {
  return {
    '@context': ACTOR_CONTEXT,
    id,
    type: 'Reject',
    actor,
    to: [to],
    object: offerId,
    summary,
  };
}

/** `Resolve` of a pull request opened from an offer: it was merged. */
export function resolveActivity(id: string, actor: string, to: string, pullUrl: string) {
  return { '@context': ACTOR_CONTEXT, id, type: 'Resolve', actor, to: [to], object: pullUrl };
}

function readBranch(value: unknown): BranchRef | undefined {
  if (!isRecord(value)) return undefined;
  const repo = idOf(value.context);
  const ref = typeof value.ref === 'string' ? value.ref : undefined;
  if (!repo || !URL.canParse(repo) || !ref?.startsWith(BRANCH_PREFIX)) return undefined;
  const branch = ref.slice(BRANCH_PREFIX.length);
  return branch && branch.length <= 255 ? { repo, branch } : undefined;
}

function readPatches(collection: unknown): string[] {
  if (!isRecord(collection) || !Array.isArray(collection.orderedItems)) return [];
  return collection.orderedItems.flatMap((item) =>
    isRecord(item) && typeof item.content === 'string' ? [item.content] : [],
  );
}

/**
 * The merge request an `Offer` proposes, or the reason it is not one Kiln can take. The
 * branches are read from the ticket's attachment (ForgeFed's draft) or from the ticket itself.
 */
export function readOffer(activity: Record<string, unknown>): PullOffer | string {
  const id = idOf(activity);
  const actor = idOf(activity.actor);
  const ticket = activity.object;
  if (!id || !actor || !isRecord(ticket) || ticket.type !== 'Ticket') {
    return 'the offer is not an Offer of a Ticket with an id and an actor';
  }
  const attachment = isRecord(ticket.attachment) ? ticket.attachment : ticket;
  const origin = readBranch(attachment.origin);
  const target = readBranch(attachment.target);
  if (!origin || !target) return 'the ticket names no origin and target Branch (refs/heads/…)';
  const title =
    typeof ticket.summary === 'string'
      ? ticket.summary
      : typeof ticket.name === 'string'
        ? ticket.name
        : '';
  const source = isRecord(ticket.source) ? ticket.source.content : undefined;
  const body =
    typeof source === 'string' ? source : typeof ticket.content === 'string' ? ticket.content : '';
  return { id, actor, title, body, origin, target, patches: readPatches(attachment.object) };
}

/** The change an `Update{Ticket}` brings, or undefined when it is not one Kiln can read. */
export function readUpdate(activity: Record<string, unknown>): TicketUpdate | undefined {
  const id = idOf(activity);
  const actor = idOf(activity.actor);
  const ticket = activity.object;
  if (!id || !actor || !isRecord(ticket) || ticket.type !== 'Ticket') return undefined;
  const ticketId = idOf(ticket);
  const attachment = isRecord(ticket.attachment) ? ticket.attachment : ticket;
  const origin = readBranch(attachment.origin);
  const target = readBranch(attachment.target);
  if (!ticketId || !origin || !target) return undefined;
  return { id, actor, ticket: ticketId, origin, target, patches: readPatches(attachment.object) };
}
