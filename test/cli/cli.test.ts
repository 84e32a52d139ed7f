/**
 * The command line of INTERFACE.md, run through the `kiln` launcher: help on every command,
 * global options on either side of the command, what each command prints, passwords that never
 * have to be on the command line, one-line errors and exit code 2 for usage errors, and `serve`
 * announcing itself and draining on SIGTERM.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/load.ts';
import { LAUNCHER, runCli, useCliInstance } from '../support/cli.ts';

let env: Record<string, string>;
let dir: string;
useCliInstance('kiln-cli-', (instance) => {
  ({ env, dir } = instance);
});

/** A file holding `text`, for --password-file and --config. */
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** Runs `work` on a Kiln opened on the same database and data dir as the commands. */
async function withKiln<T>(work: (app: Awaited<ReturnType<typeof createApp>>) => Promise<T>) {
  const app = await createApp(loadConfig({ file: file('empty.toml', ''), env }));
  try {
    return await work(app);
  } finally {
    await app.close();
  }
}

const create = (name: string) => [
  'user',
  'create',
  '--username',
  name,
  '--email',
  `${name}@example.test`,
];

const COMMANDS = [
  'serve',
  'migrate',
  'user create',
  'user list',
  'user set-password',
  'user disable',
  'user enable',
  'token create',
  'token list',
  'token revoke',
  'org create',
  'repo list',
  'actions generate-runner-token',
  'mcp',
];

describe('kiln help', () => {
  it('lists every command, and each command and group has help', async () => {
    const overview = await runCli(['--help'], env);
    expect(overview.code).toBe(0);
    for (const command of COMMANDS) expect(overview.stdout).toContain(`  ${command} `);
    for (const command of COMMANDS) {
      const words = command.split(' ');
      // Every form for two commands; --help for the rest (each run is a process start).
      const forms = ['serve', 'user disable'].includes(command)
        ? [
            [...words, '--help'],
            [...words, '-h'],
            ['help', ...words],
            ['--help', ...words],
          ]
        : [[...words, '--help']];
      for (const args of forms) {
        const help = await runCli(args, env);
        expect(help.code, args.join(' ')).toBe(0);
        expect(help.stdout).toMatch(new RegExp(`^usage: kiln ${command}\\b`));
        expect(help.stdout).toContain('--config FILE');
      }
    }
    const tokenHelp = await runCli(['token', 'create', '--help'], env);
    expect(tokenHelp.stdout).toContain('--username NAME --name LABEL');
    for (const group of ['user', 'token', 'actions']) {
      const help = await runCli([group, '--help'], env);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`usage: kiln ${group} <command>`);
    }
    expect((await runCli(['actions', '--help'], env)).stdout).toContain('generate-runner-token');
    // The built-in runner has a command line of its own; the overview and `help` lead to it.
    expect(overview.stdout).toMatch(/ {2}runner register +Register this host/);
    expect(overview.stdout).toMatch(/ {2}runner daemon +Run CI jobs/);
    for (const args of [
      ['help', 'runner', 'register'],
      ['runner', '--help'],
    ]) {
      const help = await runCli(args, env);
      expect(help.code, args.join(' ')).toBe(0);
      expect(help.stdout).toContain('kiln runner daemon [--file PATH]');
    }
  });

  it('answers a bare command or group with its help on stderr and exit code 2', async () => {
    const bare = await runCli([], env);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('Commands:');
    const group = await runCli(['user'], env);
    expect(group.code).toBe(2);
    expect(group.stderr).toContain('user disable');
  });
});

describe('kiln commands', () => {
  it('takes --config before or after the command', async () => {
    const bad = file('bad.toml', '[service.http]\nport = "eighty"\n');
    for (const args of [
      ['--config', bad, 'migrate'],
      ['migrate', '--config', bad],
      [`--config=${bad}`, 'migrate'],
    ]) {
      const result = await runCli(args, env);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain('service.http.port (config file)');
    }
  });

  it('migrate says how many migrations it applied', async () => {
    const first = await runCli(['migrate'], env);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^database is up to date \(\d+ migrations applied\)\n$/);
    expect(first.stdout).not.toContain('(0 migrations');
    const again = await runCli(['migrate'], env);
    expect(again.stdout).toBe('database is up to date (0 migrations applied)\n');
  });

  it('takes a password from a file or stdin, and warns when it is on the command line', async () => {
    const fromFile = await runCli(
      [...create('ada'), '--password-file', file('ada.pw', 'analytical-1843\n')],
      env,
    );
    expect(fromFile).toEqual({ code: 0, stdout: 'created user ada\n', stderr: '' });
    const fromStdin = await runCli([...create('alan'), '--password-stdin'], env, {
      input: 'enigma-1912\n',
    });
    expect(fromStdin).toEqual({ code: 0, stdout: 'created user alan\n', stderr: '' });
    const onArgv = await runCli([...create('edsger'), '--password', 'goto-harmful'], env);
    expect(onArgv.code).toBe(0);
    expect(onArgv.stderr).toMatch(/^kiln: warning: .*--password.*process list.*\n$/);
    await withKiln(async (app) => {
      expect(await app.services.users.authenticate('ada', 'analytical-1843')).toBeDefined();
      expect(await app.services.users.authenticate('alan', 'enigma-1912')).toBeDefined();
      expect(await app.services.users.authenticate('edsger', 'goto-harmful')).toBeDefined();
    });

    const none = await runCli(create('nobody'), env);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^kiln: a password is needed: .*--password-file.*\n$/);
    const two = await runCli([...create('nobody'), '--password-stdin', '--password', 'x'], env, {
      input: 'y',
    });
    expect(two.code).toBe(2);
    const unreadable = await runCli([...create('nobody'), '--password-file', join(dir, 'no')], env);
    expect(unreadable).toMatchObject({ code: 2, stderr: expect.stringMatching(/ENOENT/) });
  });

  it('lists people and resets a password, ending their sign-ins', async () => {
    const list = await runCli(['user', 'list'], { ...env, SERVICE_ADMIN_HANDLES: 'ada' });
    expect(list.code).toBe(0);
    const lines = list.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^USERNAME\s+EMAIL\s+CREATED\s+STATE\s+ADMIN$/);
    expect(lines).toContainEqual(
      expect.stringMatching(/^ada\s+ada@example\.test\s.*active\s+yes$/),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^alan\s.*active\s+no$/));
    const signedIn = await withKiln(async (app) => {
      const alan = await app.services.users.authenticate('alan', 'enigma-1912');
      return (await app.services.sessions.start(alan!, {})).secret;
    });
    const reset = await runCli(
      ['user', 'set-password', '--username', 'alan', '--password-stdin'],
      env,
      {
        input: 'bombe-1939',
      },
    );
    expect(reset).toEqual({
      code: 0,
      stdout: 'changed the password of alan and ended their sign-ins\n',
      stderr: '',
    });
    await withKiln(async (app) => {
      expect(await app.services.sessions.resolve(signedIn)).toBeUndefined();
      expect(await app.services.users.authenticate('alan', 'enigma-1912')).toBeUndefined();
      expect(await app.services.users.authenticate('alan', 'bombe-1939')).toBeDefined();
    });
  });

  it('creates, lists and revokes tokens, never showing a secret again', async () => {
    const token = await runCli(['token', 'create', '--username', 'ada', '--name', 'ci'], env);
    expect(token.code).toBe(0);
    expect(token.stdout).toMatch(/^[0-9a-f]{40}\n$/);
    const secret = token.stdout.trim();
    const list = await runCli(['token', 'list', '--username', 'ada'], env);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      /^NAME\s+SCOPES\s+CREATED\s+LAST USED\s+EXPIRES\nci\s+all\s+\d{4}-\d\d-\d\d \d\d:\d\d UTC\s+never\s+never\n$/,
    );
    expect(list.stdout).not.toContain(secret.slice(-8));
    await withKiln(async (app) =>
      expect(await app.services.tokens.authenticate(secret)).toBeDefined(),
    );
    const revoke = await runCli(['token', 'revoke', '--username', 'ada', '--name', 'ci'], env);
    expect(revoke).toEqual({ code: 0, stdout: 'revoked token ci of ada\n', stderr: '' });
    await withKiln(async (app) =>
      expect(await app.services.tokens.authenticate(secret)).toBeUndefined(),
    );
    expect((await runCli(['token', 'list', '--username', 'ada'], env)).stdout).toBe(
      'ada has no access tokens\n',
    );
    const again = await runCli(['token', 'revoke', '--username', 'ada', '--name', 'ci'], env);
    expect(again).toMatchObject({
      code: 2,
      stderr: 'kiln: access token does not exist [name: ci]\n',
    });
  });

  it('creates an organisation and lists every repository, private ones too', async () => {
    const org = await runCli(['org', 'create', '--name', 'engine', '--owner', 'ada'], env);
    expect(org).toEqual({
      code: 0,
      stdout: 'created organisation engine, owned by ada\n',
      stderr: '',
    });
    expect((await runCli(['repo', 'list'], env)).stdout).toBe('no repositories\n');
    await withKiln(async (app) => {
      const ada = await app.services.users.getUser('ada');
      await app.services.repos.create(ada, { name: 'notes', private: true });
      await app.services.repos.create(ada, { name: 'mill', orgName: 'engine' });
    });
    const all = await runCli(['repo', 'list'], env);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(
      /^REPOSITORY\s+VISIBILITY\s+CREATED\nada\/notes\s+private\s.*\nengine\/mill\s+public\s.*\n$/,
    );
    const one = await runCli(['repo', 'list', '--owner', 'engine'], env);
    expect(one.stdout).not.toContain('ada/notes');
    expect(one.stdout).toContain('engine/mill');
  });

  it('fails with one line when a name is taken or invalid, with 2 for usage errors', async () => {
    const pw = ['--password-file', file('pw', 'password1')];
    expect((await runCli([...create('linus'), ...pw], env)).code).toBe(0);
    const again = await runCli([...create('linus'), ...pw], env);
    expect(again.code).not.toBe(0);
    expect(again.stderr.trim().split('\n')).toHaveLength(1);
    const invalid = await runCli(
      ['user', 'create', '--username', 'a..b', '--email', 'x@example.test', ...pw],
      env,
    );
    expect(invalid.code).not.toBe(0);
    expect(invalid.stderr).toMatch(/^kiln: username may contain only .*\n$/);
    const dash = await runCli(['user', 'create', '--username', '-x'], env);
    expect(dash.code).toBe(2);
    expect(dash.stderr).toMatch(/^kiln: [^\n]+\n$/);
    const missing = await runCli(['token', 'create', '--username', 'linus'], env);
    expect(missing).toMatchObject({ code: 2, stderr: 'kiln: --name is required\n' });
    const unknown = await runCli(['usr', 'list'], env);
    expect(unknown).toMatchObject({
      code: 2,
      stderr: 'kiln: unknown command "usr"; did you mean "user"? (see kiln --help)\n',
    });
    expect((await runCli(['migrate', '--frobnicate'], env)).code).toBe(2);
    expect((await runCli(['--frobnicate', 'migrate'], env)).code).toBe(2);
  });

  it('stops on a bad configuration value with one line naming the key', async () => {
    const result = await runCli(['migrate'], { ...env, SERVICE_CI_TASK_TIMEOUT: 'soon' });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'kiln: config: service.ci.task-timeout (environment SERVICE_CI_TASK_TIMEOUT) must be a duration such as `90s`, `5m` or `1h`; got "soon"\n',
    );
  });

  it('warns once about each unknown SERVICE_ variable, naming the closest key', async () => {
    const result = await runCli(['migrate'], { ...env, SERVICE_HTTP_PROT: '8080' });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      'kiln: warning: config: unknown environment variable SERVICE_HTTP_PROT is ignored; did you mean SERVICE_HTTP_PORT (service.http.port)?\n',
    );
  });

  it('serves, prints the listening line, and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [LAUNCHER, 'serve'], {
      env: { PATH: process.env.PATH ?? '', ...env, SERVICE_HTTP_PORT: '0', SERVICE_SSH_PORT: '0' },
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
    expect(line).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+\n/);
    const url = (line.split('\n')[0] ?? '').replace('listening on ', '');
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });
});
