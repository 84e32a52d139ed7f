import { TooManyAttempts, Unauthenticated } from '../../domain/errors.ts';
import type { DomainServices } from '../../domain/services.ts';
import { tokenViewer, viewerFromAuthorization } from './api-auth.ts';
import { parseBasicPassword } from './credentials.ts';
import type { Viewer } from './viewer.ts';

/**
 * The viewer of a route that also takes a password over HTTP Basic (the token API, which
 * `tea login add` calls with a username and password). As in Gitea, a password that is a valid
 * token counts as that token; anything else is checked as the account's password, through the
 * same throttle as the sign-in form (per name and per client address), so Basic auth is no
 * way around it. Every other header is read as on any other route.
 */
export async function viewerFromPasswordOrToken(
  services: DomainServices,
  header: string | undefined,
  address: string,
): Promise<Viewer> {
  const basic = parseBasicPassword(header);
  if (!basic) return viewerFromAuthorization(services, header);
  const holder = await services.tokens.authenticate(basic.password);
  if (holder) return tokenViewer(holder);
  const subject = { login: basic.username, address };
  const verdict = await services.loginThrottle.attempt(subject);
  if (!verdict.allowed) {
    throw new TooManyAttempts('too many failed sign-ins; try again later', {
      details: { retryAfterSeconds: verdict.retryAfterSeconds },
    });
  }
  const user = await services.users.authenticate(basic.username, basic.password);
  if (!user) throw new Unauthenticated('invalid username or password');
  await services.loginThrottle.succeeded(subject);
  return { kind: 'user', user, via: 'password' };
}
