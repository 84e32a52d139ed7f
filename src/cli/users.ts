import type { App } from '../app.ts';
import type { User } from '../domain/users/user.types.ts';
import { type Command, requiredValue, say, stringValue, withApp } from './command.ts';
import { PASSWORD_NOTES, PASSWORD_OPTIONS, readPassword } from './password.ts';
import { formatTable, formatTime } from './table.ts';

const USERNAME = {
  type: 'string',
  value: 'NAME',
  help: 'the person, by username',
  required: true,
} as const;

/** Runs `work` on the person `--username` names, in a Kiln built from the configuration. */
function onUser(work: (app: App, user: User) => Promise<void>): Command['run'] {
  return ({ values, config }) =>
    withApp(config(), async (app) =>
      work(app, await app.services.users.getUser(requiredValue(values, 'username'))),
    );
}

/** `user create`, `user list`, `user set-password`, `user disable`, `user enable`. */
export const userCommands: readonly Command[] = [
  {
    name: 'user create',
    summary: 'Create a person’s account',
    options: {
      username: { ...USERNAME, help: 'the new username' },
      email: { type: 'string', value: 'ADDR', help: 'their email address', required: true },
      'full-name': { type: 'string', value: 'NAME', help: 'their full name' },
      ...PASSWORD_OPTIONS,
    },
    notes: PASSWORD_NOTES,
    run: async ({ values, config }) => {
      const password = await readPassword(values, 'Password');
      await withApp(config(), async (app) => {
        const fullName = stringValue(values, 'full-name');
        const user = await app.services.users.createUser({
          handle: requiredValue(values, 'username'),
          email: requiredValue(values, 'email'),
          password,
          ...(fullName !== undefined ? { fullName } : {}),
        });
        say(`created user ${user.handle}`);
      });
    },
  },
  {
    name: 'user list',
    summary: 'List every person, with their state and whether they are an admin',
    options: {},
    run: ({ config }) =>
      withApp(config(), async (app) => {
        const rows = await app.services.users.listUsers();
        if (rows.length === 0) {
          say('no users yet');
          return;
        }
        say(
          formatTable(
            ['USERNAME', 'EMAIL', 'CREATED', 'STATE', 'ADMIN'],
            rows.map(({ user, disabledAt }) => [
              user.handle,
              user.email,
              formatTime(user.createdAt),
              disabledAt ? 'disabled' : 'active',
              app.services.admins.isAdmin(user) ? 'yes' : 'no',
            ]),
          ),
        );
      }),
  },
  {
    name: 'user set-password',
    summary: 'Set a person’s password without knowing the current one',
    options: { username: USERNAME, ...PASSWORD_OPTIONS },
    notes: PASSWORD_NOTES,
    run: async (context) => {
      const password = await readPassword(context.values, 'New password');
      await onUser(async (app, user) => {
        await app.services.users.setPassword(user, password);
        say(`changed the password of ${user.handle}`);
      })(context);
    },
  },
  {
    name: 'user disable',
    summary: 'Disable a person: no sign-in, and their sessions and tokens stop working',
    options: { username: USERNAME },
    notes: ['What they own stays; `kiln user enable` lets them in again.'],
    run: onUser(async (app, user) => {
      await app.services.users.setDisabled(user, true);
      say(`disabled user ${user.handle}: sign-in, sessions and tokens refused`);
    }),
  },
  {
    name: 'user enable',
    summary: 'Enable a disabled person again',
    options: { username: USERNAME },
    run: onUser(async (app, user) => {
      await app.services.users.setDisabled(user, false);
      say(`enabled user ${user.handle}`);
    }),
  },
];
