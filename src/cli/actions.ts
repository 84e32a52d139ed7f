import { type Command, say, stringValue, UsageError, withApp } from './command.ts';

/** `actions generate-runner-token`. */
export const actionsCommands: readonly Command[] = [
  {
    name: 'actions generate-runner-token',
    summary: 'Create a runner registration token and print it, alone on stdout (shown once)',
    usage: 'actions generate-runner-token [--repo OWNER/NAME | --org ORG]',
    options: {
      repo: { type: 'string', value: 'OWNER/NAME', help: 'for runners of one repository' },
      org: { type: 'string', value: 'ORG', help: 'for runners of one organisation' },
    },
    notes: ['Without --repo or --org the token registers instance-wide runners (docs/runners.md).'],
    run: ({ values, config }) => {
      const repo = stringValue(values, 'repo');
      const org = stringValue(values, 'org');
      if (repo !== undefined && org !== undefined) {
        throw new UsageError('give --repo or --org, not both');
      }
      return withApp(config(), async (app) => {
        const admin = app.services.runnerAdmin;
        const scope = await admin.resolveScope({
          ...(repo !== undefined ? { repo } : {}),
          ...(org !== undefined ? { org } : {}),
        });
        const { OPERATOR } = await import('../domain/runners/runner.policy.ts');
        const { token } = await admin.createToken(OPERATOR, scope);
        say(token);
      });
    },
  },
];
