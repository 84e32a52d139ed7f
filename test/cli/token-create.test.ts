/**
 * `token create --scopes … --expires …`: the printed token has exactly the scopes and the expiry
 * asked for; without them it has every scope and no expiry; a bad scope or duration is one line.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/load.ts';
import { scopeNames } from '../../src/domain/tokens/token-scopes.ts';
import { runCli, useCliInstance } from '../support/cli.ts';

let env: Record<string, string>;
let dir: string;
useCliInstance('kiln-cli-token-', async (instance) => {
  ({ env, dir } = instance);
  const made = await runCli(
    [
      'user',
      'create',
      '--username',
      'ada',
      '--email',
      'ada@example.test',
      '--password',
      'engine-1843',
    ],
    env,
  );
  expect(made.code).toBe(0);
});

/** The tokens of `ada` as the database holds them, by name. */
async function tokensOfAda() {
  const file = join(dir, 'empty.toml');
  writeFileSync(file, '');
  const app = await createApp(loadConfig({ file, env }));
  try {
    const user = await app.services.users.getUser('ada');
    const list = await app.services.tokens.list(user);
    return new Map(list.map((token) => [token.name, token]));
  } finally {
    await app.close();
  }
}

describe('token create', () => {
  it('gives the token the scopes and expiry asked for, or all and none', async () => {
    const before = Date.now();
    const scoped = await runCli(
      [
        'token',
        'create',
        '--username',
        'ada',
        '--name',
        'renovate',
        '--scopes',
        'read:user,write:repository',
        '--expires',
        '30d',
      ],
      env,
    );
    expect(scoped.code).toBe(0);
    expect(scoped.stdout).toMatch(/^[0-9a-f]{40}\n$/);
    const plain = await runCli(['token', 'create', '--username', 'ada', '--name', 'all'], env);
    expect(plain.code).toBe(0);

    const tokens = await tokensOfAda();
    const renovate = tokens.get('renovate');
    expect(scopeNames(renovate!.scopes)).toEqual(['write:repository', 'read:user']);
    const expiresMs = renovate!.expiresAt!.getTime() - before;
    expect(expiresMs).toBeGreaterThan(29.9 * 86_400_000);
    expect(expiresMs).toBeLessThan(30.1 * 86_400_000);
    expect(scopeNames(tokens.get('all')!.scopes)).toEqual(['all']);
    expect(tokens.get('all')!.expiresAt).toBeNull();
  });

  it('refuses an unknown scope and an unreadable duration in one line', async () => {
    const args = ['token', 'create', '--username', 'ada', '--name', 'x'];
    const scope = await runCli([...args, '--scopes', 'repo'], env);
    expect(scope.code).not.toBe(0);
    expect(scope.stderr).toBe('kiln: invalid access token scope: repo\n');
    const duration = await runCli([...args, '--expires', 'soon'], env);
    expect(duration.code).not.toBe(0);
    expect(duration.stderr).toBe(
      'kiln: --expires takes a duration such as 7d, 30d or 12h, not soon\n',
    );
  });

  it('refuses a token for the actions bot, which could open nothing with it', async () => {
    const bot = await runCli(
      ['token', 'create', '--username', 'kiln-actions', '--name', 'ci'],
      env,
    );
    expect(bot.code).toBe(2);
    expect(bot.stdout).toBe('');
    expect(bot.stderr).toBe(
      'kiln: kiln-actions is the built-in actions bot: it acts only through CI task tokens and cannot hold an access token\n',
    );
    const listed = await runCli(['token', 'list', '--username', 'kiln-actions'], env);
    expect(listed.stdout).toBe('kiln-actions has no access tokens\n');
  });
});
