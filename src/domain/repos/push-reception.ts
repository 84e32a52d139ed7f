import type { Readable } from 'node:stream';
import { answerAfter } from '../../git/answer-after.ts';
import { receivePack, type TransportOptions } from '../../git/transport.ts';
import type { PullSuggestion, PullSuggestionService } from '../pulls/pull-suggestions.service.ts';
import type { User } from '../users/user.types.ts';
import type { ProtectedBranchService } from './protected-branch.service.ts';
import type { PushService } from './push.service.ts';
import type { RepoService } from './repo.service.ts';
import type { Repository } from './repo.types.ts';

/** What receiving a push uses: the repository on disk, its protected refs, the push use case. */
export type PushReceptionServices = {
  readonly repos: Pick<RepoService, 'handle'>;
  readonly protectedBranches: Pick<ProtectedBranchService, 'protectedRefs' | 'pushRestrictions'>;
  readonly pushHandling: Pick<PushService, 'afterPush'>;
  readonly pullSuggestions: Pick<PullSuggestionService, 'afterPush'>;
};

/** One push as a transport hands it over, after it has checked the pusher may write. */
export type IncomingPush = {
  readonly repo: Repository;
  readonly pusher: User;
  /** Whether the push came with a deploy key (pushed as its adder, but judged as the key). */
  readonly viaDeployKey?: boolean;
  /** What the client sends receive-pack. */
  readonly input: Readable;
  readonly transport: TransportOptions;
  /**
   * The lines to show the pusher after a branch was pushed (addresses are the edge's), on the
   * side-band channel git prints as `remote: …`, over any transport.
   */
  readonly hints?: (suggestions: readonly PullSuggestion[]) => readonly string[];
  readonly log: {
    warn(error: unknown, message: string): void;
    error(error: unknown, message: string): void;
  };
};

/**
 * Runs receive-pack for a push, whatever transport brought it (smart HTTP, SSH), and returns
 * its answer. The protected refs and the rules of who may push go to the pre-receive hook; once git is done, the refs that
 * moved go to the push use case (`PushService.afterPush`: the repository's record, then pulls,
 * CI, webhooks, federation). The answer ends only once the repository's own record is in step
 * (its default branch above all: a first push of `develop` must not leave HEAD on a missing
 * `main`), so the pusher never sees it stale, however soon it asks; the reactions may take long
 * and run after it. Before the end come Gitea's lines about pulls to open or visit.
 */
export async function receivePush(
  services: PushReceptionServices,
  push: IncomingPush,
): Promise<Readable> {
  const { repo, pusher, log } = push;
  const pack = await receivePack(services.repos.handle(repo), push.input, {
    ...push.transport,
    ...(await services.protectedBranches.protectedRefs(repo)),
    // Who may push where (`enable_push` and its whitelists), and what the pushed commits must
    // be (signed, leaving protected files alone), hold on every transport alike.
    ...(await services.protectedBranches.pushRestrictions(repo, pusher, {
      deployKey: push.viaDeployKey ?? false,
    })),
  });
  const failed = (error: unknown) => log.error(error, 'after-push work failed');
  const recorded = pack.result.then(({ changes, error }) => {
    if (error) log.warn(error, 'receive-pack ended early');
    return services.pushHandling.afterPush({ repo, pusher, changes }, failed).recorded;
  });
  const { hints } = push;
  if (!hints) return answerAfter(pack.output, () => recorded);
  const lines = async () => {
    const { changes } = await pack.result;
    return hints(await services.pullSuggestions.afterPush(repo, pusher, changes));
  };
  return answerAfter(pack.output, () => recorded, {
    sideband: pack.sideband,
    commandsRead: pack.commandsRead,
    lines,
  });
}
