import type { AdminPolicy } from '../admin/admin.policy.ts';
import { Forbidden, NotFound } from '../errors.ts';
import type { OrgService } from '../orgs/org.service.ts';
import type { Account, User } from '../users/user.types.ts';
import { mayAdministerOrg, mayCreateOwnRepos } from './repo.policy.ts';

/** What deciding a new repository's owner reads. */
export type CreationOwnerDeps = {
  readonly orgs: Pick<OrgService, 'getOrg' | 'roleOf'>;
  readonly admins: AdminPolicy;
  /** Whether a team of the organisation with `can_create_org_repo` counts the person in. */
  readonly teams?: { mayCreateRepos(userId: string, orgId: string): Promise<boolean> };
};

/**
 * The account a new repository or fork of `actor`'s goes to: the organisation named, which
 * they must administer or belong to a team of that may create repositories (NotFound when they
 * are no member, else Forbidden), or their own
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
  if (mayAdministerOrg(role, admins.isAdmin(actor), admins.isActionOwner(org.handle))) return org;
  if (role === undefined) throw new NotFound(`org does not exist [name: ${orgName}]`);
  // As Gitea: a member of a team allowed to create repositories may, in its organisation.
  if (await deps.teams?.mayCreateRepos(actor.id, org.id)) return org;
  throw new Forbidden('Given user is not allowed to create repository in organization.');
}
