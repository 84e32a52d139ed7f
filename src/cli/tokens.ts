import { Invalid, NotFound } from '../domain/errors.ts';
import { scopeNames } from '../domain/tokens/token-scopes.ts';
import { parseDuration } from '../lib/duration.ts';
import { type Command, requiredValue, say, stringValue, withApp } from './command.ts';
import { formatTable, formatTime } from './table.ts';

const USERNAME = {
  type: 'string',
  value: 'NAME',
  help: 'the person the token acts as',
  required: true,
} as const;

/** `--expires 30d`: that long from now; a duration Kiln cannot read is a one-line error. */
function expiryAfter(text: string | undefined): Date | null {
  if (text === undefined) return null;
  const ms = parseDuration(text);
  if (ms === undefined || ms <= 0) {
    throw new Invalid(`--expires takes a duration such as 7d, 30d or 12h, not ${text}`);
  }
  return new Date(Date.now() + ms);
}

/** `token create`, `token list`, `token revoke`. A token's secret is shown once, at creation. */
export const tokenCommands: readonly Command[] = [
  {
    name: 'token create',
    summary: 'Create a personal access token and print it, alone on stdout (shown once)',
    options: {
      username: USERNAME,
      name: { type: 'string', value: 'LABEL', help: 'a name for the token', required: true },
      scopes: {
        type: 'string',
        value: 'a,b',
        help: 'what the token may do, e.g. read:repository,write:user (default: all)',
      },
      expires: {
        type: 'string',
        value: 'DURATION',
        help: 'when the token stops working, e.g. 30d or 12h (default: never)',
      },
    },
    notes: ['Only its hash is stored: the printed token cannot be shown again.'],
    run: ({ values, config }) =>
      withApp(config(), async (app) => {
        const user = await app.services.users.getUser(requiredValue(values, 'username'));
        const { token } = await app.services.tokens.create(user, requiredValue(values, 'name'), {
          scopes: stringValue(values, 'scopes'),
          expiresAt: expiryAfter(stringValue(values, 'expires')),
        });
        say(token);
      }),
  },
  {
    name: 'token list',
    summary: 'List a person’s personal access tokens (never their secrets)',
    options: { username: USERNAME },
    run: ({ values, config }) =>
      withApp(config(), async (app) => {
        const user = await app.services.users.getUser(requiredValue(values, 'username'));
        const tokens = await app.services.tokens.list(user);
        if (tokens.length === 0) {
          say(`${user.handle} has no access tokens`);
          return;
        }
        say(
          formatTable(
            ['NAME', 'SCOPES', 'CREATED', 'LAST USED', 'EXPIRES'],
            tokens.map((token) => [
              token.name,
              scopeNames(token.scopes).join(','),
              formatTime(token.createdAt),
              formatTime(token.lastUsedAt),
              formatTime(token.expiresAt),
            ]),
          ),
        );
      }),
  },
  {
    name: 'token revoke',
    summary: 'Revoke a personal access token by name',
    options: {
      username: USERNAME,
      name: { type: 'string', value: 'LABEL', help: 'the token’s name', required: true },
    },
    run: ({ values, config }) =>
      withApp(config(), async (app) => {
        const user = await app.services.users.getUser(requiredValue(values, 'username'));
        const name = requiredValue(values, 'name');
        const token = (await app.services.tokens.list(user)).find((t) => t.name === name);
        if (!token) throw new NotFound(`access token does not exist [name: ${name}]`);
        await app.services.tokens.revoke(user, token.id);
        say(`revoked token ${token.name} of ${user.handle}`);
      }),
  },
];
