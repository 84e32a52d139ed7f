import type { Repository } from '../domain/repos/repo.types.ts';
import type { Account } from '../domain/users/user.types.ts';
import { chatPayload } from '../present/webhook-chat.ts';
import { pushPayload, ZERO_SHA } from '../present/webhook-payloads.ts';
import type { WebhookRecords } from './webhook-records.ts';

/**
 * What builds the test delivery of a repository hook: a push of the default branch's latest
 * commit (before and after both that commit), as Gitea sends it. Handed to `WebhookService` at
 * construction, so the service knows nothing of Gitea's payloads.
 */
export function testPushEvents(records: WebhookRecords) {
  return async (repo: Repository, actor: Account) => {
    const facts = await records.repoFacts(repo);
    const scope = { repository: await records.repository(repo), sender: records.user(actor) };
    const tip = facts.empty ? undefined : await records.branchTip(repo, facts.defaultBranch);
    const page = tip ? await records.pushedCommits(repo, tip, null, 1) : { commits: [], total: 0 };
    const payload = pushPayload(
      {
        ref: `refs/heads/${facts.defaultBranch}`,
        before: tip ?? ZERO_SHA,
        after: tip ?? ZERO_SHA,
        compareUrl: '',
        commits: page.commits,
        totalCommits: page.commits.length,
        pusher: scope.sender,
      },
      scope,
    );
    return {
      event: {
        event: 'push',
        eventType: 'push',
        subscription: 'push' as const,
        branch: null,
        payload,
      },
      format: (type: string) => chatPayload(type, 'push', payload),
    };
  };
}
