/**
 * A real Kiln with a user, a repository and a registered `kiln runner` for the black-box runner
 * suites: workflows are pushed with git, daemons are real processes, results are read back
 * through the Actions REST API.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { OPERATOR } from '../../src/domain/runners/runner.policy.ts';
import type { User } from '../../src/domain/users/user.types.ts';
import { makeRepo } from '../git/fixtures.ts';
import { MAIN, runCli } from '../support/cli.ts';
import { eventually } from '../support/eventually.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import type { Json } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** A `kiln runner daemon` process and what it has said so far. */
export type Daemon = {
  readonly child: ChildProcess;
  stderr(): string;
  readonly exit: Promise<number | null>;
};

/** The administrator who publishes the instance's actions in the runner suites. */
const ACTIONS_ADMIN = 'actions-admin';

export class KilnWorld {
  readonly kiln: TestServer;
  readonly git: GitClient;
  readonly dir: string;
  readonly #daemons: Daemon[] = [];
  #actions: Promise<{ org: string; token: string }> | undefined;

  private constructor(kiln: TestServer, git: GitClient, dir: string) {
    this.kiln = kiln;
    this.git = git;
    this.dir = dir;
  }

  static async start(): Promise<KilnWorld> {
    const kiln = await startTestServer({
      SERVICE_SECRET_KEY: 'runner suites secret key',
      SERVICE_ADMIN_HANDLES: ACTIONS_ADMIN,
    });
    const git = await GitClient.create();
    return new KilnWorld(kiln, git, await mkdtemp(join(tmpdir(), 'kiln-runner-world-')));
  }

  /**
   * An administrator's token and the `actions` organisation they made, created once: the
   * action owner whose repositories a host-less `uses: actions/…` resolves to.
   */
  async actionsOwner(): Promise<{ org: string; token: string }> {
    this.#actions ??= (async () => {
      const { user, token } = await this.kiln.make.userWithToken({ handle: ACTIONS_ADMIN });
      const org = await this.kiln.app.services.orgs.createOrg({ name: 'actions', owner: user });
      return { org: org.handle, token };
    })();
    return this.#actions;
  }

  /** A user with a token and a fresh repository of theirs. */
  async repo(): Promise<{ user: User; password: string; token: string; full: string }> {
    const { user, password, token } = await this.kiln.make.userWithToken();
    const { name } = await makeRepo(this.kiln, user);
    return { user, password, token, full: `${user.handle}/${name}` };
  }

  /** Registers an instance runner with `label` through `kiln runner register`; its file. */
  async register(label: string, file = join(this.dir, `${label}.runner`)): Promise<string> {
    const registration = await this.kiln.app.services.runnerAdmin.createToken(OPERATOR, {
      kind: 'instance',
    });
    const result = await runCli([
      'runner',
      'register',
      '--instance',
      this.kiln.url,
      '--token',
      registration.token,
      '--name',
      label,
      '--labels',
      label,
      '--file',
      file,
    ]);
    expect(result.code, result.stderr).toBe(0);
    return file;
  }

  /**
   * Starts `kiln runner daemon` on a registration file: unisolated unless `extra` names an
   * `--isolation`, so that steps may write where the suite looks; `as` runs it under another
   * account (with `setpriv`), `workdir` puts its work elsewhere than the world's directory, `path`
   * replaces its PATH, `env` adds variables.
   */
  daemon(
    file: string,
    extra: string[] = [],
    how: {
      as?: { uid: number; gid: number };
      workdir?: string;
      path?: string;
      env?: Record<string, string>;
    } = {},
  ): Daemon {
    const isolation = extra.includes('--isolation') ? [] : ['--isolation', 'none'];
    const args = [
      MAIN,
      'runner',
      'daemon',
      '--file',
      file,
      '--workdir',
      how.workdir ?? join(this.dir, 'work'),
      ...isolation,
      ...extra,
    ];
    const as = how.as;
    const command = as
      ? [
          '/usr/bin/setpriv',
          `--reuid=${as.uid}`,
          `--regid=${as.gid}`,
          '--clear-groups',
          process.execPath,
        ]
      : [process.execPath];
    const [program = '', ...prefix] = command;
    const child = spawn(program, [...prefix, ...args], {
      env: {
        PATH: how.path ?? process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        ...how.env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    const exit = new Promise<number | null>((resolve) =>
      child.on('close', (code) => resolve(code)),
    );
    const daemon = { child, stderr: () => stderr, exit };
    this.#daemons.push(daemon);
    return daemon;
  }

  /** Commits `files` to a fresh history and pushes it as `main` (and `refs`); the commit id. */
  async push(
    full: string,
    token: string,
    files: Record<string, string>,
    refs: readonly string[] = [],
  ): Promise<string> {
    const [owner = '', name = ''] = full.split('/');
    const work = await this.git.init();
    const sha = await this.git.commit(work, files, 'add CI');
    await this.git.ok(
      [
        'push',
        '-q',
        repoUrl(this.kiln.url, owner, name, { token, as: 'password' }),
        'main',
        ...refs,
      ],
      {
        cwd: work,
      },
    );
    return sha;
  }

  /** GET under the repository's REST path, as JSON (or text for logs). */
  async api(full: string, token: string, path: string): Promise<{ status: number; text: string }> {
    const response = await fetch(`${this.kiln.url}/api/v1/repos/${full}${path}`, {
      headers: { authorization: `token ${token}` },
    });
    return { status: response.status, text: await response.text() };
  }

  /** The repository's newest run, or undefined. */
  async latestRun(full: string, token: string): Promise<Json | undefined> {
    const runs = JSON.parse((await this.api(full, token, '/actions/runs')).text) as {
      workflow_runs: Json[];
    };
    return runs.workflow_runs[0];
  }

  /**
   * Waits (up to 90 s) for the repository's newest run to complete; it and its first job's log.
   * Fails with what the daemon said when the run does not complete.
   */
  async finishedRun(
    full: string,
    token: string,
    daemon: Daemon,
  ): Promise<{ run: Json; log: string }> {
    let run: Json | undefined;
    const completed = await eventually(async () => {
      run = await this.latestRun(full, token);
      return run?.status === 'completed';
    }, 90_000);
    expect(completed, `the run did not complete; the runner said: ${daemon.stderr()}`).toBe(true);
    const jobs = JSON.parse((await this.api(full, token, `/actions/runs/${run?.id}/jobs`)).text);
    const log = (await this.api(full, token, `/actions/jobs/${jobs.jobs[0].id}/logs`)).text;
    return { run: run as Json, log };
  }

  async close(): Promise<void> {
    for (const daemon of this.#daemons) {
      if (daemon.child.exitCode !== null || daemon.child.signalCode !== null) continue;
      daemon.child.kill('SIGTERM');
      await daemon.exit;
    }
    await this.git.dispose();
    await this.kiln.close();
    await rm(this.dir, { recursive: true, force: true });
  }
}
