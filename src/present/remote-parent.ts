import { GO_ZERO_TIME } from '../lib/time.ts';
import { KILN_REPO_FEATURES, UNIX_EPOCH } from './repo-features.ts';
import type { ApiParentRepository } from './schemas/repo.ts';
import type { ApiUser } from './schemas/user.ts';

/** The repository on another server a local one was forked from, as Kiln keeps it. */
export type RemoteParent = {
  /** Its ActivityPub id (on Kiln, the repository's page URL). */
  readonly actor: string;
  readonly cloneUri: string;
  /** Its `name` when it was forked; read from the id when not kept. */
  readonly name?: string | undefined;
};

/**
 * Who owns the remote repository and what it is called, from its id: `/repos/{owner}/{name}` on
 * Kiln, `/{owner}/{name}` where the id's last segment is the name; elsewhere (an id such as
 * Forgejo's `/api/v1/activitypub/repository-id/7`) the owner is not in the id, and the server's
 * host stands for it. With the host: `ada@forge.example`.
 */
export function remoteNames(parent: RemoteParent): { login: string; name: string } {
  const url = new URL(parent.actor);
  const segments = url.pathname.split('/').filter(Boolean).map(safeDecode);
  const tail = segments[0] === 'repos' && segments.length === 3 ? segments.slice(1) : segments;
  const last = tail[tail.length - 1] ?? '';
  const name = parent.name || last;
  const named = tail.length === 2 && last === name;
  const owner = named ? (tail[0] ?? '') : '';
  return { login: owner ? `${owner}@${url.host}` : url.host, name };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Gitea's Repository object for a parent on another server, built from what its actor said:
 * `full_name` is `owner@host/name` (the handle the fediverse writes, and never a local
 * `owner/name`), `html_url` the actor (its page), `clone_url` its `cloneUri`, `id` 0 as no
 * local repository has it. What Kiln cannot know of it (counts, permissions) is zero or false.
 */
export function toApiRemoteParent(parent: RemoteParent): ApiParentRepository {
  const { login, name } = remoteNames(parent);
  const ownerPage = new URL(parent.actor);
  const owner: ApiUser = {
    id: 0,
    login,
    login_name: '',
    source_id: 0,
    full_name: '',
    avatar_url: '',
    html_url: login.includes('@')
      ? `${ownerPage.origin}/${encodeURIComponent(login.split('@')[0] ?? '')}`
      : ownerPage.origin,
    language: '',
    is_admin: false,
    last_login: GO_ZERO_TIME,
    created: GO_ZERO_TIME,
    restricted: false,
    active: true,
    prohibit_login: false,
    location: '',
    website: '',
    description: '',
    visibility: 'public',
    followers_count: 0,
    following_count: 0,
    starred_repos_count: 0,
    username: login,
  };
  return {
    id: 0,
    owner,
    name,
    full_name: `${login}/${name}`,
    description: '',
    empty: false,
    private: false,
    fork: false,
    template: false,
    mirror: false,
    size: 0,
    language: '',
    languages_url: '',
    html_url: parent.actor,
    url: parent.actor,
    link: '',
    ssh_url: '',
    clone_url: parent.cloneUri,
    original_url: parent.actor,
    website: '',
    stars_count: 0,
    forks_count: 0,
    watchers_count: 0,
    open_issues_count: 0,
    open_pr_counter: 0,
    release_counter: 0,
    default_branch: '',
    archived: false,
    created_at: UNIX_EPOCH,
    updated_at: UNIX_EPOCH,
    archived_at: UNIX_EPOCH,
    permissions: { admin: false, push: false, pull: true },
    ...KILN_REPO_FEATURES,
  };
}
