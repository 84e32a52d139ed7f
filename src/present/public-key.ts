import type { SshKey } from '../domain/keys/ssh-key.types.ts';
import type { Repository } from '../domain/repos/repo.types.ts';
import type { Account } from '../domain/users/user.types.ts';
import { foldId } from '../lib/ids.ts';
import { rfc3339 } from '../lib/time.ts';
import { type ConvertContext, urlFrom } from './context.ts';
import type { ApiDeployKey, ApiPublicKey } from './schemas/key.ts';
import type { ApiRepository } from './schemas/repo.ts';
import { toApiUser } from './user.ts';

/** Gitea's PublicKey for a person's key; `owner`, when given, is shown as `user`. */
export function toApiPublicKey(
  key: SshKey,
  context: ConvertContext,
  owner?: Account,
): ApiPublicKey {
  const id = foldId(key.id);
  return {
    id,
    key: key.publicKey,
    title: key.title,
    fingerprint: key.fingerprint,
    created_at: rfc3339(key.createdAt),
    read_only: key.readOnly,
    key_type: 'user',
    url: urlFrom(context, `/api/v1/user/keys/${id}`),
    ...(owner ? { user: toApiUser(owner, context) } : {}),
  };
}

/** Gitea's DeployKey; `repository`, when given, is the record of the key's repository. */
export function toApiDeployKey(
  key: SshKey,
  repo: Repository,
  context: ConvertContext,
  repository?: ApiRepository,
): ApiDeployKey {
  const id = foldId(key.id);
  const path = `${encodeURIComponent(repo.owner.handle)}/${encodeURIComponent(repo.name)}`;
  return {
    id,
    key_id: id,
    key: key.publicKey,
    title: key.title,
    fingerprint: key.fingerprint,
    created_at: rfc3339(key.createdAt),
    read_only: key.readOnly,
    url: urlFrom(context, `/api/v1/repos/${path}/keys/${id}`),
    ...(repository ? { repository } : {}),
  };
}
