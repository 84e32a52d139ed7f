import type { AccessToken } from '../domain/tokens/token.service.ts';
import { scopeNames } from '../domain/tokens/token-scopes.ts';
import { foldId } from '../lib/ids.ts';
import type { ApiAccessToken } from './schemas/token.ts';

/**
 * Gitea's AccessToken. `secret` is the token itself, given only when it was just made; every
 * other answer carries an empty `sha1`, as Gitea's lists do.
 */
export function toApiAccessToken(token: AccessToken, secret = ''): ApiAccessToken {
  return {
    id: foldId(token.id),
    name: token.name,
    sha1: secret,
    token_last_eight: token.lastEight,
    scopes: scopeNames(token.scopes),
  };
}
