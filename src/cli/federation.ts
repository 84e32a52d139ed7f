import type { App } from '../app.ts';
import type { Config } from '../config/config.ts';
import { type Command, requiredValue, say, UsageError, withApp } from './command.ts';
import { withDerivedBaseUrl } from './defaults.ts';

type Federation = NonNullable<App['services']['federation']>;

/** `withApp` for the federation commands; a usage error when federation is off. */
async function withFederation(
  config: Config,
  work: (federation: Federation, app: App) => Promise<void>,
): Promise<void> {
  // The address `serve` derives on a loopback address (a port of 0 is only known to the server).
  const derived = config.http.port === 0 ? config : (await withDerivedBaseUrl(config)).config;
  return withApp(derived, async (app) => {
    const federation = app.services.federation;
    if (!federation) {
      throw new UsageError(
        'federation is off: it needs SERVICE_BASE_URL (derived only on a loopback address) and SERVICE_FEDERATION_ENABLED not false',
      );
    }
    await work(federation, app);
  });
}

const HOST = {
  type: 'string',
  value: 'HOST',
  help: 'the server’s host name',
  required: true,
} as const;

/** `federation hosts`, `block`, `unblock` and `follow` (docs/federation.md). */
export const federationCommands: readonly Command[] = [
  {
    name: 'federation hosts',
    summary:
      'List the servers Kiln knows (followers, stars, actors seen, deliveries) and blocked ones',
    options: {},
    run: ({ config }) =>
      withFederation(config(), async (federation) => {
        for (const known of await federation.instances.list()) {
          const state = known.blocked
            ? 'blocked'
            : known.failingSince
              ? `failing since ${known.failingSince.toISOString()}`
              : 'ok';
          say(
            `${known.host}\t${known.followers} followers\t${known.stars} stars\t${known.actorsSeen} actors seen\t${known.pending} pending\t${known.failed} failed\t${state}`,
          );
        }
      }),
  },
  {
    name: 'federation block',
    summary: 'Block a server: its activities are refused and nothing is delivered to it',
    options: { host: HOST },
    run: ({ values, config }) =>
      withFederation(config(), async (federation) => {
        const host = requiredValue(values, 'host');
        await federation.instances.block(host);
        say(`blocked ${host} (every server notices within 15 s)`);
      }),
  },
  {
    name: 'federation unblock',
    summary: 'Lift a block made with `federation block`',
    options: { host: HOST },
    run: ({ values, config }) =>
      withFederation(config(), async (federation) => {
        const host = requiredValue(values, 'host');
        await federation.instances.unblock(host);
        say(`unblocked ${host}`);
      }),
  },
  {
    name: 'federation follow',
    summary: 'Make a user follow a remote actor (URL or user@host); the server delivers it',
    options: {
      username: { type: 'string', value: 'NAME', help: 'the local user', required: true },
      actor: {
        type: 'string',
        value: 'URL',
        help: 'the remote actor (URL or user@host)',
        required: true,
      },
    },
    run: ({ values, config }) =>
      withFederation(config(), async (federation, app) => {
        const user = await app.services.users.getUser(requiredValue(values, 'username'));
        const actor = await federation.following.follow(user, requiredValue(values, 'actor'));
        say(`${user.handle} asked to follow ${actor}`);
      }),
  },
];
