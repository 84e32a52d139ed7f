import type { Commit } from '../git/objects/commit.ts';
import type { Signature } from '../git/objects/signature.ts';
import { type ConvertContext, urlFrom } from './context.ts';
import type { ApiPayloadCommit, ApiPayloadUser } from './schemas/branch.ts';

/** Account handles by lowercased email, for the idents being shown. */
export type HandlesByEmail = ReadonlyMap<string, string>;

/**
 * A git time as RFC 3339 in the ident's own offset (`2024-05-01T12:34:56+02:00`), as Gitea
 * writes commit times.
 */
export function gitTime(signature: Signature): string {
  const offset = signature.timezoneOffsetMinutes;
  const local = new Date((signature.timestamp + offset * 60) * 1000);
  const clock = local.toISOString().replace(/\.\d{3}Z$/, '');
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const zone = `${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${clock}${sign}${zone}`;
}

/** Gitea's PayloadUser: the ident and the handle of the account with that address, or "". */
export function toApiPayloadUser(signature: Signature, handles: HandlesByEmail): ApiPayloadUser {
  return {
    name: signature.name,
    email: signature.email,
    username: handles.get(signature.email.toLowerCase()) ?? '',
  };
}

/**
 * Gitea's PayloadCommit for a commit of `repoPath` (`owner/name`, already URL-encoded). The file
 * lists are null, as in Gitea's branch responses; signatures are never verified.
 */
export function toApiPayloadCommit(
  commit: Commit,
  repoPath: string,
  handles: HandlesByEmail,
  context: ConvertContext,
): ApiPayloadCommit {
  return {
    id: commit.sha,
    message: commit.message,
    url: urlFrom(context, `/repos/${repoPath}/commit/${commit.sha}`),
    author: toApiPayloadUser(commit.author, handles),
    committer: toApiPayloadUser(commit.committer, handles),
    verification: {
      verified: false,
      reason: 'gpg.error.not_signed_commit',
      signature: '',
      signer: null,
      payload: '',
    },
    timestamp: gitTime(commit.author),
    added: null,
    removed: null,
    modified: null,
  };
}
