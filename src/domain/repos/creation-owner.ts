import type { AdminPolicy } from '../admin/admin.policy.ts';
import { Forbidden, NotFound } from '../errors.ts';
import type { OrgService } from '../orgs/org.service.ts';
import type { Account, User } from '../users/user.types.ts';
import { mayAdministerOrg, mayCreateOwnRepos } from './repo.policy.ts';

/** What deciding a new repository's owner reads. */
export type CreationOwnerDeps = {
  readonly orgs: Pick<OrgService, 'getOrg' | 'roleOf'>;
  readonly admins: AdminPolicy;
};

/**
 * The account a new repository or fork of `actor`'s goes to: the organisation named, which
 * they must administer (NotFound when they are no member, else Forbidden), or their own
 * account, which must not be an action owner they hold without being an administrator.
 */
export async function ownerForCreation(
  deps: CreationOwnerDeps,
  actor: User,
  orgName: string | undefined,
): Promise<Account> {
  const { admins, orgs } = deps;
  if (!orgName) {
    if (!mayCreateOwnRepos(admins.isAdmin(actor), admins.isActionOwner(actor.handle))) {
      throw new Forbidden(`only administrators create repositories under "${actor.handle}"`);
    }
    return actor;
  }
  const org = await orgs.getOrg(orgName);
  const role = await orgs.roleOf(org.id, actor.id);
  if (!mayAdministerOrg(role, admins.isAdmin(actor), admins.isActionOwner(org.handle))) {
    if (role === undefined) throw new NotFound(`org does not exist [name: ${orgName}]`);
    throw new Forbidden('Given user is not owner of organization.');
  }
  return org;
}
