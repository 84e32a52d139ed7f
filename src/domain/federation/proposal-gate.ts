import { visibleToAnyone } from '../repos/repo.policy.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { BlocksService } from './blocks.service.ts';

/** The answer of the gate: yes, or no with a reason the proposer may be told. */
export type GateAnswer = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * The one question the code receiving proposals (an `Offer` of a pull request from another
 * server) asks before it keeps anything: may this remote actor propose to this repository?
 * Offers ask it once each before anything is fetched, and so does every update of what they
 * opened; blocks and rate limits plug in here.
 */
export type ProposalGate = {
  mayPropose(actorUri: string, repoId: string): Promise<GateAnswer>;
};

/** Why a repository takes no proposal: private and missing read the same, as everywhere. */
const NOT_PUBLIC = 'the repository does not take proposals from other servers';

/**
 * The gate over blocks and visibility. Invariant: only a public repository under a public owner
 * takes proposals (one made private stops taking them at once: it is read anew on every
 * question), and nobody a site or repository block names, nor any actor of a server Kiln does
 * not federate with, may propose.
 */
export function proposalGate(deps: {
  readonly blocks: Pick<BlocksService, 'refusal'>;
  readonly repos: Pick<RepoService, 'findById'>;
}): ProposalGate {
  return {
    async mayPropose(actorUri, repoId) {
      const repo = await deps.repos.findById(repoId);
      if (!repo || !visibleToAnyone(repo)) return { ok: false, reason: NOT_PUBLIC };
      const refused = await deps.blocks.refusal(actorUri, repo.id);
      return refused ? { ok: false, reason: refused.reason } : { ok: true };
    },
  };
}
