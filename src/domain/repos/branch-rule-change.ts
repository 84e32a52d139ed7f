import { Invalid } from '../errors.ts';
import type { UserService } from '../users/user.service.ts';
import {
  checkApprovals,
  checkNames,
  checkPatterns,
  type ProtectionChange,
} from './branch-rule-input.ts';
import type { StoredRule } from './protected-branch.store.ts';

/**
 * The stored rule after a change (Gitea's POST and PATCH): every value checked, people found by
 * handle (kept by account id, so a rename keeps them listed), teams kept by name; what the
 * change leaves out stays as it is.
 */
export async function changedRule(
  current: StoredRule,
  change: ProtectionChange,
  users: Pick<UserService, 'findAccount'>,
): Promise<StoredRule> {
  const ids = async (handles: readonly string[] | undefined, fallback: readonly string[]) => {
    if (handles === undefined) return fallback;
    const found: string[] = [];
    for (const handle of checkNames(handles, 'user names')) {
      const account = await users.findAccount(handle);
      if (account?.kind !== 'user') {
        throw new Invalid(`user does not exist [name: ${handle}]`);
      }
      found.push(account.id);
    }
    return [...new Set(found)];
  };
  const teams = (names: readonly string[] | undefined, fallback: readonly string[]) =>
    names === undefined ? fallback : checkNames(names, 'team names');
  const {
    pushWhitelistUsernames,
    mergeWhitelistUsernames,
    approvalsWhitelistUsernames,
    pushWhitelistTeams,
    mergeWhitelistTeams,
    approvalsWhitelistTeams,
    statusCheckContexts,
    requiredApprovals,
    ...flags
  } = change;
  const defined = Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined));
  return {
    ...current,
    ...defined,
    statusCheckContexts: checkPatterns(statusCheckContexts ?? current.statusCheckContexts),
    requiredApprovals: checkApprovals(requiredApprovals ?? current.requiredApprovals),
    pushWhitelistUserIds: await ids(pushWhitelistUsernames, current.pushWhitelistUserIds),
    mergeWhitelistUserIds: await ids(mergeWhitelistUsernames, current.mergeWhitelistUserIds),
    approvalsWhitelistUserIds: await ids(
      approvalsWhitelistUsernames,
      current.approvalsWhitelistUserIds,
    ),
    pushWhitelistTeams: teams(pushWhitelistTeams, current.pushWhitelistTeams),
    mergeWhitelistTeams: teams(mergeWhitelistTeams, current.mergeWhitelistTeams),
    approvalsWhitelistTeams: teams(approvalsWhitelistTeams, current.approvalsWhitelistTeams),
  };
}
