import { describe, expect, it } from 'vitest';
import { type App, createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/load.ts';
import { OPERATOR } from '../../src/domain/runners/runner.policy.ts';
import { runCli, useCliInstance } from '../support/cli.ts';

let env: Record<string, string>;
let configFile: string;

useCliInstance('kiln-actions-cli-', (instance) => {
  ({ env, configFile } = instance);
});

/** Opens the same instance the CLI wrote to, for checks and set-up the CLI has no verb for. */
async function withInstance<T>(work: (app: App) => Promise<T>): Promise<T> {
  const app = await createApp(loadConfig({ file: configFile, env }));
  try {
    return await work(app);
  } finally {
    await app.close();
  }
}

const TOKEN_LINE = /^[0-9a-f]{40}\n$/;

describe('kiln actions generate-runner-token', () => {
  it('is listed in the help', async () => {
    expect((await runCli(['--help'], env)).stdout).toContain('actions generate-runner-token');
    const help = await runCli(['actions', 'generate-runner-token', '--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('[--repo OWNER/NAME | --org ORG]');
  });

  it('prints an instance token alone on stdout, usable at once', async () => {
    const result = await runCli(['actions', 'generate-runner-token'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(TOKEN_LINE);
    const token = result.stdout.trim();
    await withInstance(async (app) => {
      const { runner } = await app.services.runners.register({
        token,
        name: 'cli-runner',
        version: 'v1',
        labels: [],
        ephemeral: false,
        capabilities: [],
      });
      expect(runner.scope).toEqual({ kind: 'instance' });
      const tokens = await app.services.runnerAdmin.listTokens(OPERATOR, undefined);
      expect(tokens.some((listed) => listed.creatorHandle === null)).toBe(true);
    });
  });

  it('scopes a token to an organisation or a repository', async () => {
    const create = [
      'user',
      'create',
      '--username',
      'ken',
      '--email',
      'ken@example.test',
      '--password',
      'unix-1969',
    ];
    expect((await runCli(create, env)).code).toBe(0);
    expect((await runCli(['org', 'create', '--name', 'bell', '--owner', 'ken'], env)).code).toBe(0);
    const repoId = await withInstance(async (app) => {
      const owner = await app.services.users.getAccount('bell');
      const id = crypto.randomUUID();
      await app.database.db
        .insertInto('repositories')
        .values({
          id,
          owner_id: owner.id,
          name: 'Plan9',
          name_lower: 'plan9',
          description: '',
          private: false,
          parent_id: null,
          pull_counter: 0,
          created_at: Date.now(),
          updated_at: Date.now(),
        })
        .execute();
      return id;
    });

    const org = await runCli(['actions', 'generate-runner-token', '--org', 'bell'], env);
    expect(org.stdout).toMatch(TOKEN_LINE);
    const repo = await runCli(['actions', 'generate-runner-token', '--repo', 'BELL/plan9'], env);
    expect(repo.stdout).toMatch(TOKEN_LINE);

    await withInstance(async (app) => {
      const scopes = [];
      for (const result of [org, repo]) {
        const { runner } = await app.services.runners.register({
          token: result.stdout.trim(),
          name: 'scoped',
          version: 'v1',
          labels: [],
          ephemeral: false,
          capabilities: [],
        });
        scopes.push(runner.scope);
      }
      const bell = await app.services.users.getAccount('bell');
      expect(scopes).toEqual([
        { kind: 'organisation', orgId: bell.id },
        { kind: 'repository', repoId },
      ]);
    });
  });

  it('fails with one line for both flags, a malformed or missing repository, or no such org', async () => {
    for (const args of [
      ['--repo', 'bell/plan9', '--org', 'bell'],
      ['--repo', 'plan9'],
      ['--repo', 'bell/unix'],
      ['--org', 'nobody-here'],
    ]) {
      const result = await runCli(['actions', 'generate-runner-token', ...args], env);
      expect(result.code).not.toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});
