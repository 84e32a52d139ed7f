import type { OrgService } from '../orgs/org.service.ts';
import type { UserService } from '../users/user.service.ts';
import { isUser } from '../users/user.types.ts';
import type { AdminPolicy } from './admin.policy.ts';

/** An action owner held by an account that administrators do not control, and who else does. */
export type UncontrolledActionOwner = {
  readonly handle: string;
  readonly kind: 'user' | 'org';
  /** The non-administrators who hold it: the person, or the organisation's owners. */
  readonly holders: readonly string[];
};

export type ActionOwnerFacts = {
  readonly admins: AdminPolicy;
  readonly users: Pick<UserService, 'findAccount' | 'findManyByIds'>;
  readonly orgs: Pick<OrgService, 'listMembers'>;
};

/**
 * The action owners (SERVICE_CI_ACTION_OWNERS) that an account already holds without being the
 * administrators': a person who is not an administrator, or an organisation with an owner who is
 * not. Writes there are now capped at read for them (repo.policy.ts), but what they published
 * before is still what runners fetch, so the doctor and the start-up log name each one.
 */
export async function uncontrolledActionOwners(
  facts: ActionOwnerFacts,
): Promise<UncontrolledActionOwner[]> {
  const found: UncontrolledActionOwner[] = [];
  for (const name of facts.admins.actionOwners()) {
    const account = await facts.users.findAccount(name);
    if (account === undefined) continue;
    if (isUser(account)) {
      if (!facts.admins.isAdmin(account)) {
        found.push({ handle: account.handle, kind: 'user', holders: [account.handle] });
      }
      continue;
    }
    const owners = (await facts.orgs.listMembers(account)).filter((m) => m.role === 'owner');
    const people = await facts.users.findManyByIds(owners.map((owner) => owner.userId));
    const holders = [...people.values()].flatMap((person) =>
      isUser(person) && !facts.admins.isAdmin(person) ? [person.handle] : [],
    );
    if (holders.length > 0) found.push({ handle: account.handle, kind: 'org', holders });
  }
  return found;
}
