import type { OrgRole } from '../orgs/org.service.ts';
import type { User } from '../users/user.types.ts';
import type { AccessLevel, CollaboratorPermission, Repository } from './repo.types.ts';

/** Everything the access rule depends on, loaded by the service beforehand. */
export type AccessFacts = {
  readonly viewer: User | undefined;
  readonly isSiteAdmin: boolean;
  /** The viewer's role in the owning organisation, when the owner is one. */
  readonly orgRole: OrgRole | undefined;
  readonly collaborator: CollaboratorPermission | undefined;
};

/**
 * The viewer's access to a repository:
 * - site admins and the owner (or an owner of the owning organisation) administer it;
 * - collaborators get the level they were given; organisation members can read;
 * - anyone may read a public repository; nobody else sees a private one.
 */
export function accessLevel(repo: Repository, facts: AccessFacts): AccessLevel {
  const { viewer } = facts;
  if (viewer) {
    if (facts.isSiteAdmin || repo.owner.id === viewer.id || facts.orgRole === 'owner')
      return 'admin';
    if (facts.collaborator) return facts.collaborator;
    if (facts.orgRole === 'member') return 'read';
  }
  return repo.private ? 'none' : 'read';
}
