/**
 * The account a pull request proposed from another server is filed under (its `author_id`), as
 * the actions bot is for CI: a real row (migration `remote-pull-authors`), so every query that
 * joins or counts pulls by author stays whole, while the person shown is the remote actor kept
 * beside the pull (`pull_remote_authors`).
 *
 * Invariant: this account never acts. It has no password, no address anyone can reach and no
 * keys; the user store never finds it by handle, for sign-in or as an active user, so no session,
 * token, collaborator, team or membership can name it. A remote author therefore never holds any
 * local permission: what they proposed is a pull request and nothing more.
 */
export const REMOTE_AUTHOR_ID = '00000000-0000-4000-8000-00000000fed0';
export const REMOTE_AUTHOR_HANDLE = 'kiln-federation';
export const REMOTE_AUTHOR_EMAIL = 'kiln-federation@noreply.invalid';

/** The person on another server who proposed a pull request here. */
export type RemoteAuthor = {
  /** Their ActivityPub actor id (a URL on their server). */
  readonly actor: string;
  /** `name@host`, as the API's `user.login` shows them. */
  readonly login: string;
  /** Their avatar's URL when their actor names one on their own server, else null. */
  readonly avatarUrl: string | null;
};

const EPOCH = new Date(0);

/** The remote author account as the actor of what it files (a pull's `opened` event). */
export const remoteAuthorAccount = Object.freeze({
  id: REMOTE_AUTHOR_ID,
  handle: REMOTE_AUTHOR_HANDLE,
  kind: 'user',
  email: REMOTE_AUTHOR_EMAIL,
  fullName: 'Federated author',
  description: '',
  createdAt: EPOCH,
  updatedAt: EPOCH,
} as const);
