import { foldId } from '../lib/ids.ts';
import { rfc3339 } from '../lib/time.ts';

/** A secret as Gitea lists it: name and creation time. */
export function toApiSecret(secret: { readonly name: string; readonly createdAt: Date }) {
  return { name: secret.name, created_at: rfc3339(secret.createdAt) };
}

/** An organisation's variable as Gitea shows it (`repo_id` 0: not a repository's). */
export function toApiOrgVariable(variable: {
  readonly orgId: string;
  readonly name: string;
  readonly value: string;
}) {
  return {
    owner_id: foldId(variable.orgId),
    repo_id: 0,
    name: variable.name,
    data: variable.value,
  };
}

/** A repository's variable as Gitea shows it (`owner_id` 0: not an organisation's). */
export function toApiRepoVariable(variable: {
  readonly repoId: string;
  readonly name: string;
  readonly value: string;
}) {
  return {
    owner_id: 0,
    repo_id: foldId(variable.repoId),
    name: variable.name,
    data: variable.value,
  };
}
