import { type Command, requiredValue, say, withApp } from './command.ts';

/** `org create`. */
export const orgCommands: readonly Command[] = [
  {
    name: 'org create',
    summary: 'Create an organisation owned by a person',
    options: {
      name: { type: 'string', value: 'ORG', help: 'the organisation’s name', required: true },
      owner: { type: 'string', value: 'USERNAME', help: 'its first owner', required: true },
    },
    run: ({ values, config }) =>
      withApp(config(), async (app) => {
        const owner = await app.services.users.getUser(requiredValue(values, 'owner'));
        const org = await app.services.orgs.createOrg({
          name: requiredValue(values, 'name'),
          owner,
          byOperator: true,
        });
        say(`created organisation ${org.handle}, owned by ${owner.handle}`);
      }),
  },
];
