import { NotFound } from '../domain/errors.ts';
import { type Command, requiredValue, say, withApp } from './command.ts';
import { formatTable, formatTime } from './table.ts';

const USERNAME = {
  type: 'string',
  value: 'NAME',
  help: 'the person the token acts as',
  required: true,
} as const;

/** `token create`, `token list`, `token revoke`. A token's secret is shown once, at creation. */
export const tokenCommands: readonly Command[] = [
  {
    name: 'token create',
    summary: 'Create a personal access token and print it, alone on stdout (shown once)',
    options: {
      username: USERNAME,
      name: { type: 'string', value: 'LABEL', help: 'a name for the token', required: true },
    },
    notes: ['Only its hash is stored: the printed token cannot be shown again.'],
    run: ({ values, config }) =>
      withApp(config(), async (app) => {
        const user = await app.services.users.getUser(requiredValue(values, 'username'));
        const { token } = await app.services.tokens.create(user, requiredValue(values, 'name'));
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
            ['NAME', 'CREATED', 'LAST USED'],
            tokens.map((token) => [
              token.name,
              formatTime(token.createdAt),
              formatTime(token.lastUsedAt),
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
