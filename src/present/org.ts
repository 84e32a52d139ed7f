import type { OrgSettings } from '../domain/orgs/org.service.ts';
import type { Account } from '../domain/users/user.types.ts';
import { foldId } from '../lib/ids.ts';
import { type ConvertContext, urlFrom } from './context.ts';
import type { ApiOrganization } from './schemas/org.ts';

/** Gitea's Organization object: an organisation's account and settings. */
export function toApiOrganization(
  org: Account,
  settings: OrgSettings,
  context: ConvertContext,
): ApiOrganization {
  return {
    id: foldId(org.id),
    name: org.handle,
    full_name: org.fullName,
    email: '',
    avatar_url: urlFrom(context, `/assets/avatar.svg?u=${encodeURIComponent(org.handle)}`) ?? '',
    description: org.description,
    website: settings.website,
    location: '',
    visibility: settings.visibility,
    repo_admin_change_team_access: false,
    username: org.handle,
  };
}
