import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A work tree driven by the real git CLI, with its own HOME and no system or user config. */
export class WorkTree {
  readonly dir: string;
  readonly #home: string;

  constructor() {
    this.#home = mkdtempSync(join(tmpdir(), 'kiln-git-home-'));
    this.dir = mkdtempSync(join(tmpdir(), 'kiln-work-'));
  }

  #env(): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH,
      HOME: this.#home,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_TERMINAL_PROMPT: '0',
      GIT_AUTHOR_NAME: 'Browser Tester',
      GIT_AUTHOR_EMAIL: 'tester@example.test',
      GIT_COMMITTER_NAME: 'Browser Tester',
      GIT_COMMITTER_EMAIL: 'tester@example.test',
      LC_ALL: 'C',
    };
  }

  /** Runs git in the work tree; rejects with git's stderr on a non-zero exit. */
  async git(...args: string[]): Promise<string> {
    const { stdout } = await run('git', args, { cwd: this.dir, env: this.#env(), timeout: 60_000 });
    return stdout.trim();
  }

  write(path: string, content: string): void {
    const file = join(this.dir, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
    rmSync(this.#home, { recursive: true, force: true });
  }
}

/** `http://user:token@host/owner/name.git` from a clone URL. */
export function withToken(cloneUrl: string, user: string, token: string): string {
  const url = new URL(cloneUrl);
  url.username = user;
  url.password = token;
  return url.href;
}
