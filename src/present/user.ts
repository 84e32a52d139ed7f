import type { RemoteAuthor } from '../domain/users/remote-author.ts';
import type { Account } from '../domain/users/user.types.ts';
import { foldId } from '../lib/ids.ts';
import { GO_ZERO_TIME, rfc3339 } from '../lib/time.ts';
import { type ConvertContext, urlFrom } from './context.ts';
import type { ApiUser } from './schemas/user.ts';

export type UserView = {
  /** Only the person themself sees their email address and account details. */
  readonly self: boolean;
  readonly isAdmin: boolean;
  /**
   * The account is disabled, as `prohibit_login`. Gitea shows it only to site administrators and
   * the person themself (who, disabled, cannot ask), so callers pass it only to those.
   */
  readonly prohibitLogin?: boolean;
};

/** Gitea's User object. `email` is present only for the person themself (SPEC.md). */
export function toApiUser(account: Account, context: ConvertContext, view?: UserView): ApiUser {
  const handle = encodeURIComponent(account.handle);
  const user: ApiUser = {
    id: foldId(account.id),
    login: account.handle,
    login_name: '',
    source_id: 0,
    full_name: account.fullName,
    avatar_url: urlFrom(context, `/assets/avatar.svg?u=${handle}`),
    html_url: urlFrom(context, `/${handle}`),
    language: '',
    is_admin: view?.self === true && view.isAdmin,
    last_login: GO_ZERO_TIME,
    created: rfc3339(account.createdAt),
    restricted: false,
    active: true,
    prohibit_login: view?.prohibitLogin === true,
    location: '',
    website: '',
    description: account.description,
    visibility: 'public',
    followers_count: 0,
    following_count: 0,
    starred_repos_count: 0,
    username: account.handle,
  };
  if (view?.self && account.email !== null) user.email = account.email;
  return user;
}

/**
 * A person of another server who proposed a pull request here, as Gitea's User object: `login`
 * is `name@host` and `html_url` their actor on their server. `account` is the remote author
 * account the pull is filed under (its id and dates; nothing of it is a person).
 */
export function toApiRemoteUser(
  author: RemoteAuthor,
  account: Account,
  context: ConvertContext,
): ApiUser {
  const user = toApiUser(
    { ...account, handle: author.login, fullName: '', description: '' },
    context,
  );
  return {
    ...user,
    html_url: author.actor,
    ...(author.avatarUrl ? { avatar_url: author.avatarUrl } : {}),
  };
}
