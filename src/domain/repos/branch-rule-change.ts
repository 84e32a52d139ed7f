import { Invalid } from '../errors.ts';
import type { TeamIds } from '../orgs/team-ids.ts';
import type { UserService } from '../users/user.service.ts';
import {
  checkApprovals,
  checkFilePatterns,
  checkNames,
  checkPatterns,
  type ProtectionChange,
} from './branch-rule-input.ts';
import type { StoredRule } from './protected-branch.store.ts';
import type { Repository } from './repo.types.ts';

/**
 * The stored rule after a change (Gitea's POST and PATCH): every value checked, people found by
 * handle (kept by account id, so a rename keeps them listed), teams looked up in the
 * repository's organisation and kept by id (a team deleted and made again under its name does not
 * inherit the place; a person's repository has no teams); what the change leaves out stays as it
 * is.
 */
export async function changedRule(
  repo: Repository,
  current: StoredRule,
  change: ProtectionChange,
  ports: {
    readonly users: Pick<UserService, 'findAccount'>;
    readonly teamIds: Pick<TeamIds, 'idsOf'>;
  },
): Promise<StoredRule> {
  const { users, teamIds } = ports;
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
  const teams = async (names: readonly string[] | undefined, fallback: readonly string[]) => {
    if (names === undefined) return fallback;
    const checked = checkNames(names, 'team names');
    return repo.owner.kind === 'org' ? teamIds.idsOf(repo.owner.id, checked) : [];
  };
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
  const files = (list: string | undefined, what: string) =>
    list === undefined ? {} : { [what]: checkFilePatterns(list, 'file patterns') };
  return {
    ...current,
    ...defined,
    ...files(flags.protectedFilePatterns, 'protectedFilePatterns'),
    ...files(flags.unprotectedFilePatterns, 'unprotectedFilePatterns'),
    statusCheckContexts: checkPatterns(statusCheckContexts ?? current.statusCheckContexts),
    requiredApprovals: checkApprovals(requiredApprovals ?? current.requiredApprovals),
    pushWhitelistUserIds: await ids(pushWhitelistUsernames, current.pushWhitelistUserIds),
    mergeWhitelistUserIds: await ids(mergeWhitelistUsernames, current.mergeWhitelistUserIds),
    approvalsWhitelistUserIds: await ids(
      approvalsWhitelistUsernames,
      current.approvalsWhitelistUserIds,
    ),
    pushWhitelistTeamIds: await teams(pushWhitelistTeams, current.pushWhitelistTeamIds),
    mergeWhitelistTeamIds: await teams(mergeWhitelistTeams, current.mergeWhitelistTeamIds),
    approvalsWhitelistTeamIds: await teams(
      approvalsWhitelistTeams,
      current.approvalsWhitelistTeamIds,
    ),
  };
}
