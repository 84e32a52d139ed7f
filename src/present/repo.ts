import type { AccessLevel, Repository } from '../domain/repos/repo.types.ts';
import { foldId } from '../lib/ids.ts';
import { rfc3339 } from '../lib/time.ts';
import { type ConvertContext, urlFrom } from './context.ts';
import { type RemoteParent, toApiRemoteParent } from './remote-parent.ts';
import { KILN_REPO_FEATURES, UNIX_EPOCH } from './repo-features.ts';
import type { ApiParentRepository, ApiRepository } from './schemas/repo.ts';
import { sshCloneUrl } from './ssh-url.ts';
import { toApiUser } from './user.ts';

/** Everything about one repository that a Repository object shows, already loaded. */
export type RepoFacts = {
  readonly repo: Repository;
  /** The caller's access; `none` only for a parent the caller cannot see (never shown then). */
  readonly access: AccessLevel;
  readonly defaultBranch: string;
  readonly empty: boolean;
  readonly openPulls?: number;
  readonly releases?: number;
  readonly forks?: number;
  /** Stars given from other servers (Kiln has no local stars). */
  readonly stars?: number;
  /** The repository on another server this one was forked from, if it was. */
  readonly remoteParent?: RemoteParent | undefined;
};

function permissions(access: AccessLevel) {
  return {
    admin: access === 'admin',
    push: access === 'admin' || access === 'write',
    pull: access !== 'none',
  };
}

/** Gitea's Repository object without `parent`. */
export function toApiParentRepository(
  facts: RepoFacts,
  context: ConvertContext,
): ApiParentRepository {
  const { repo } = facts;
  const path = `${encodeURIComponent(repo.owner.handle)}/${encodeURIComponent(repo.name)}`;
  return {
    id: foldId(repo.id),
    owner: toApiUser(repo.owner, context),
    name: repo.name,
    full_name: `${repo.owner.handle}/${repo.name}`,
    description: repo.description,
    empty: facts.empty,
    private: repo.private,
    fork: repo.parentId !== null || facts.remoteParent !== undefined,
    template: false,
    mirror: false,
    size: 0,
    language: '',
    languages_url: urlFrom(context, `/api/v1/repos/${path}/languages`),
    html_url: urlFrom(context, `/repos/${path}`),
    url: urlFrom(context, `/api/v1/repos/${path}`),
    link: '',
    ssh_url: context.ssh
      ? sshCloneUrl(context.ssh, context.baseUrl, repo.owner.handle, repo.name)
      : '',
    clone_url: urlFrom(context, `/${path}.git`),
    original_url: '',
    website: '',
    stars_count: facts.stars ?? 0,
    forks_count: facts.forks ?? 0,
    watchers_count: 0,
    open_issues_count: 0,
    open_pr_counter: facts.openPulls ?? 0,
    release_counter: facts.releases ?? 0,
    default_branch: facts.defaultBranch,
    archived: false,
    created_at: rfc3339(repo.createdAt),
    updated_at: rfc3339(repo.updatedAt),
    archived_at: UNIX_EPOCH,
    permissions: permissions(facts.access),
    ...KILN_REPO_FEATURES,
  };
}

/** Gitea's Repository object; `parent` only for a fork whose parent the caller can see. */
export function toApiRepository(
  facts: RepoFacts,
  context: ConvertContext,
  parent?: RepoFacts,
): ApiRepository {
  const api: ApiRepository = toApiParentRepository(facts, context);
  if (parent && parent.access !== 'none') api.parent = toApiParentRepository(parent, context);
  else if (facts.remoteParent) api.parent = toApiRemoteParent(facts.remoteParent);
  return api;
}
