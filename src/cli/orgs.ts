import { type Command, requiredValue, say, stringValue, UsageError, withApp } from './command.ts';

const ROLES = ['member', 'owner'] as const;

function roleValue(text: string | undefined): (typeof ROLES)[number] {
  const role = text ?? 'member';
  const known = ROLES.find((candidate) => candidate === role);
  if (!known) throw new UsageError(`--role must be member or owner, not ${JSON.stringify(role)}`);
  return known;
}

/** `org create`, `org add-member` and `org remove-member`: what an operator does without the web. */
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
  {
    name: 'org add-member',
    summary: 'Add a person to an organisation, or change their role in it',
    options: {
      org: { type: 'string', value: 'ORG', help: 'the organisation', required: true },
      username: { type: 'string', value: 'NAME', help: 'the person to add', required: true },
      role: { type: 'string', value: 'ROLE', help: '`member` (the default) or `owner`' },
    },
    notes: ['A member given another role keeps their membership with the new role.'],
    run: ({ values, config }) => {
      const role = roleValue(stringValue(values, 'role'));
      return withApp(config(), async (app) => {
        const org = requiredValue(values, 'org');
        const { person, before } = await app.services.orgs.changeMemberByOperator(
          org,
          requiredValue(values, 'username'),
          role,
        );
        say(
          before === undefined
            ? `added ${person.handle} to ${org} as ${role}`
            : before === role
              ? `${person.handle} is already ${role} of ${org}`
              : `${person.handle} is now ${role} of ${org} (was ${before})`,
        );
      });
    },
  },
  {
    name: 'org remove-member',
    summary: 'Remove a person from an organisation (never its last owner)',
    options: {
      org: { type: 'string', value: 'ORG', help: 'the organisation', required: true },
      username: { type: 'string', value: 'NAME', help: 'the person to remove', required: true },
    },
    run: ({ values, config }) =>
      withApp(config(), async (app) => {
        const org = requiredValue(values, 'org');
        const { person } = await app.services.orgs.changeMemberByOperator(
          org,
          requiredValue(values, 'username'),
          undefined,
        );
        say(`removed ${person.handle} from ${org}`);
      }),
  },
];
