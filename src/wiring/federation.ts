import type { Config } from '../config/config.ts';
import type { Database } from '../db/database.ts';
import type { EventBus } from '../domain/events.ts';
import type { Federation, FederationDeps } from '../domain/federation/federation.ts';
import { openFederation } from '../domain/federation/open-federation.ts';
import { visibleToAnyone } from '../domain/repos/repo.policy.ts';
import type { RepoService } from '../domain/repos/repo.service.ts';
import type { UserService } from '../domain/users/user.service.ts';
import type { GitContext } from '../git/git-context.ts';
import type { CacheRegistry } from '../lib/cache-registry.ts';
import { KILN_VERSION } from '../version.ts';

/** Where failures of federation's background work go (the server's log). */
export function reportFederation(error: unknown): void {
  process.stderr.write(`kiln: federation work failed: ${String(error)}\n`);
}

/** Federation when the configuration turns it on (see `openFederation`), else undefined. */
export function buildFederation(parts: {
  readonly config: Config;
  readonly database: Database;
  readonly git: GitContext;
  readonly users: UserService;
  readonly repos: RepoService;
  readonly protectedBranches: FederationDeps['protectedBranches'];
  readonly pushHandling: FederationDeps['pushHandling'];
  readonly caches: CacheRegistry;
  readonly remotePulls: FederationDeps['remotePulls'];
}): Promise<Federation | undefined> {
  const { config, database } = parts;
  return openFederation({
    config,
    db: database.db,
    dialect: database.dialect,
    changes: database.changes,
    users: parts.users,
    repos: parts.repos,
    protectedBranches: parts.protectedBranches,
    pushHandling: parts.pushHandling,
    catFiles: parts.git.catFiles,
    userAgent: `Kiln/${KILN_VERSION} (+${config.baseUrl?.href ?? ''})`,
    report: reportFederation,
    caches: parts.caches,
    remotePulls: parts.remotePulls,
  });
}

/**
 * Federation announces pushes, releases and new repositories to followers: each only enqueues
 * work, so nothing a user does waits for another server. What stops being visible to an
 * anonymous visitor is withdrawn at once: a repository made private or deleted, an organisation
 * made private or deleted; a failed withdrawal is reported and never undoes the change (what is
 * served is checked anew on every request anyway, `LocalActors.servable`).
 */
export function subscribeFederation(
  events: Pick<EventBus, 'subscribe'>,
  federation: Pick<
    Federation,
    'announcePush' | 'announceRelease' | 'announceRepo' | 'withdrawal' | 'pulls'
  >,
): void {
  const { withdrawal } = federation;
  events.subscribe('push', (push) => federation.announcePush(push));
  // A push to a branch proposed to another server updates the pull request there.
  events.subscribe('push', (push) => federation.pulls.proposalUpdates.pushed(push));
  events.subscribe('release.published', ({ repo, release }) =>
    federation.announceRelease(repo, release),
  );
  events.subscribe('repo.created', (repo) => federation.announceRepo(repo));
  const reported = (work: Promise<void>) => work.catch(reportFederation);
  events.subscribe('repo.changed', ({ before, after }) =>
    reported(withdrawal.repoChanged(before, after)),
  );
  events.subscribe('repo.deleted', async ({ repo }) => {
    if (visibleToAnyone(repo)) await reported(withdrawal.withdrawRepo(repo));
  });
  events.subscribe('org.changed', ({ before, after }) =>
    reported(withdrawal.accountChanged(before, after)),
  );
  // A pull proposed from another server, closed or merged here: its proposer's server is told.
  events.subscribe('pull', ({ action, context, merged }) =>
    action === 'closed'
      ? reported(federation.pulls.offers.pullClosed(context.base, context.pull, merged))
      : Promise.resolve(),
  );
  // A line comment on a pull proposed from another server goes to its proposer.
  events.subscribe('review-comment.created', (event) =>
    reported(federation.pulls.reviewNotes.commented(event)),
  );
  // Its edits and deletions follow it; a submitted review's body and line comments go too.
  events.subscribe('review-comment.updated', (event) =>
    reported(federation.pulls.reviewNotes.updated(event)),
  );
  events.subscribe('review-comment.deleted', (event) =>
    reported(federation.pulls.reviewNotes.deleted(event)),
  );
  events.subscribe('review.submitted', (event) =>
    reported(federation.pulls.reviewNotes.reviewed(event)),
  );
  events.subscribe('org.deleted', async (org) => {
    if (!org.private) await reported(withdrawal.withdrawAccount(org));
  });
}
