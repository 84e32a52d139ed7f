/**
 * The command line of INTERFACE.md: accounts and tokens, one-line errors, configuration errors,
 * and `serve` announcing itself and draining on SIGTERM.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIN, runCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

let database: TestDatabase;
let env: Record<string, string>;
beforeAll(async () => {
  database = await createTestDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'kiln-cli-'));
  env = {
    SERVICE_DATA_DIR: join(dir, 'data'),
    SERVICE_LOG_LEVEL: 'silent',
    ...(database.url ? { SERVICE_DATABASE_URL: database.url } : {}),
  };
});
afterAll(async () => {
  await database?.drop();
});

describe('kiln CLI', () => {
  it('prints help for the tool and for each command', async () => {
    const overview = await runCli(['--help'], env);
    expect(overview.code).toBe(0);
    for (const command of ['serve', 'migrate', 'user create', 'token create', 'org create']) {
      expect(overview.stdout).toContain(command);
    }
    const help = await runCli(['token', 'create', '--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--username NAME --name LABEL');
  });

  it('creates a user, prints a token alone on stdout, and creates an organisation', async () => {
    expect((await runCli(['migrate'], env)).code).toBe(0);
    const user = await runCli(
      [
        'user',
        'create',
        '--username',
        'grace',
        '--email',
        'grace@example.test',
        '--password',
        'cobol-1959',
      ],
      env,
    );
    expect(user.code).toBe(0);
    const token = await runCli(['token', 'create', '--username', 'grace', '--name', 'ci'], env);
    expect(token.code).toBe(0);
    expect(token.stdout).toMatch(/^[0-9a-f]{40}\n$/);
    const org = await runCli(['org', 'create', '--name', 'navy', '--owner', 'grace'], env);
    expect(org.code).toBe(0);
  });

  it('fails with one line when a name is taken or invalid', async () => {
    const args = [
      'user',
      'create',
      '--username',
      'linus',
      '--email',
      'l@example.test',
      '--password',
      'password1',
    ];
    expect((await runCli(args, env)).code).toBe(0);
    const again = await runCli(args, env);
    expect(again.code).not.toBe(0);
    expect(again.stderr.trim().split('\n')).toHaveLength(1);
    const invalid = await runCli(
      [
        'user',
        'create',
        '--username',
        'a..b',
        '--email',
        'x@example.test',
        '--password',
        'password1',
      ],
      env,
    );
    expect(invalid.code).not.toBe(0);
    expect(invalid.stderr).toMatch(/^kiln: username may contain only .*\n$/);
    const dash = await runCli(['user', 'create', '--username', '-x'], env);
    expect(dash.code).toBe(2);
    expect(dash.stderr).toMatch(/^kiln: [^\n]+\n$/);
    const missing = await runCli(['token', 'create', '--username', 'linus'], env);
    expect(missing.stderr).toBe('kiln: --name is required\n');
    const unknown = await runCli(['frobnicate'], env);
    expect(unknown.code).toBe(2);
  });

  it('stops on a bad configuration value with one line naming the key', async () => {
    const result = await runCli(['migrate'], { ...env, SERVICE_CI_TASK_TIMEOUT: 'soon' });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'kiln: config: service.ci.task-timeout (environment SERVICE_CI_TASK_TIMEOUT) must be a duration such as `90s`, `5m` or `1h`; got "soon"\n',
    );
    const dir = mkdtempSync(join(tmpdir(), 'kiln-cli-toml-'));
    writeFileSync(join(dir, 'service.toml'), '[service.http]\nport = "eighty"\n');
    const fromFile = await runCli(['migrate', '--config', join(dir, 'service.toml')], env);
    expect(fromFile.code).toBe(2);
    expect(fromFile.stderr).toContain('service.http.port (config file)');
  });

  it('serves, prints the listening line, and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [MAIN, 'serve'], {
      env: { PATH: process.env.PATH ?? '', ...env, SERVICE_HTTP_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
        if (out.includes('\n')) resolve(out);
      });
      child.on('exit', (code) => reject(new Error(`exited early with ${code}`)));
    });
    expect(line).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+\n$/);
    const url = line.trim().replace('listening on ', '');
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });
});
