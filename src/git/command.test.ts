import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Conflict, Invalid, NotFound, Unavailable } from '../domain/errors.ts';
import {
  afterDoubleDash,
  afterEndOfOptions,
  gitEnvironment,
  runGit,
  spawnGit,
  userValue,
} from './command.ts';
import { GitError, translateGitError } from './git-error.ts';
import { makeTempDir, type TempDir } from './test-support.ts';

let tmp: TempDir;
beforeAll(async () => {
  tmp = await makeTempDir();
  await runGit(['init', '--bare', '--quiet', `${tmp.path}/r.git`], { cwd: tmp.path });
});
afterAll(() => tmp.remove());

/** What a git child process sees as its environment (through a shell alias, git's own). */
async function childEnv(env?: Record<string, string>): Promise<Map<string, string>> {
  const { stdout } = await runGit(['-c', 'alias.show-env=!env', 'show-env'], {
    cwd: tmp.path,
    env,
  });
  return new Map(
    stdout
      .toString()
      .split('\n')
      .filter((line) => line.includes('='))
      .map(
        (line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const,
      ),
  );
}

describe('runGit', () => {
  it('returns stdout as a buffer and the exit code', async () => {
    const result = await runGit(['version']);
    expect(result.stdout.toString()).toMatch(/^git version \d+\.\d+/);
    expect(result.exitCode).toBe(0);
    expect(result.truncated).toBe(false);
  });

  it('pins the environment and lets no inherited GIT_ variable through', async () => {
    process.env.GIT_AUTHOR_NAME = 'leaked';
    process.env.GIT_DIR = '/leaked';
    try {
      const env = await childEnv({ GIT_PROTOCOL: 'version=2' });
      expect(env.get('LC_ALL')).toBe('C');
      expect(env.get('GIT_TERMINAL_PROMPT')).toBe('0');
      expect(env.get('GIT_CONFIG_NOSYSTEM')).toBe('1');
      expect(env.get('GIT_CONFIG_GLOBAL')).toBe('/dev/null');
      expect(env.get('GIT_PROTOCOL')).toBe('version=2');
      expect(env.has('GIT_AUTHOR_NAME')).toBe(false);
      expect(env.get('GIT_DIR')).not.toBe('/leaked');
    } finally {
      delete process.env.GIT_AUTHOR_NAME;
      delete process.env.GIT_DIR;
    }
  });

  it('refuses caller variables that would undo the pinning', () => {
    expect(() => gitEnvironment({ GIT_CONFIG_GLOBAL: '/etc/evil' })).toThrow();
    expect(() => gitEnvironment({ PATH: '/tmp' })).toThrow();
    expect(() => gitEnvironment({ 'bad name': 'x' })).toThrow();
  });

  it('translates an unknown revision into NotFound, keeping the GitError as cause', async () => {
    const error = await runGit(['rev-parse', '--verify', ...afterEndOfOptions('nope')], {
      gitDir: `${tmp.path}/r.git`,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFound);
    const cause = (error as NotFound).cause as GitError;
    expect(cause).toBeInstanceOf(GitError);
    expect(cause.exitCode).toBe(128);
    expect(cause.args).toContain('nope');
    expect(cause.stderr).toContain('Needed a single revision');
  });

  it('translates a non-repository into NotFound', async () => {
    const error = await runGit(['rev-parse', '--git-dir'], { gitDir: tmp.path }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NotFound);
  });

  it('accepts listed exit codes as success', async () => {
    const result = await runGit(['rev-parse', '--verify', '--quiet', 'nope'], {
      gitDir: `${tmp.path}/r.git`,
      okExitCodes: [0, 1],
    });
    expect(result.exitCode).toBe(1);
  });

  it('kills a process that runs past its timeout and reports Unavailable', async () => {
    const started = Date.now();
    const error = await runGit(['-c', 'alias.wait=!sleep 5', 'wait'], {
      cwd: tmp.path,
      timeoutMs: 200,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Unavailable);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('stops when the signal aborts', async () => {
    const controller = new AbortController();
    const run = runGit(['-c', 'alias.wait=!sleep 5', 'wait'], {
      cwd: tmp.path,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 50);
    const error = await run.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).message).toContain('was aborted');
  });

  it('cuts stdout at the cap when asked to, and fails without that permission', async () => {
    const args = ['-c', 'alias.yes=!yes kiln', 'yes'];
    const cut = await runGit(args, { cwd: tmp.path, maxStdoutBytes: 1000, truncateStdout: true });
    expect(cut.truncated).toBe(true);
    expect(cut.stdout.length).toBe(1000);
    await expect(runGit(args, { cwd: tmp.path, maxStdoutBytes: 1000 })).rejects.toThrow(
      /more than 1000 bytes/,
    );
  });

  it('bounds the stderr it keeps', async () => {
    const error = await runGit(
      ['-c', 'alias.noise=!yes noise | head -c 100000 >&2; exit 3', 'noise'],
      {
        cwd: tmp.path,
        maxStderrBytes: 500,
      },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).stderr.length).toBeLessThanOrEqual(500);
  });

  it('reports a process that cannot start as a GitError', async () => {
    const error = await runGit(['version'], { cwd: '/nonexistent/dir' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).exitCode).toBeNull();
  });
});

describe('spawnGit', () => {
  it('streams stdout and settles done', async () => {
    const proc = spawnGit(['version']);
    proc.stdin.end();
    const chunks: Buffer[] = [];
    for await (const chunk of proc.stdout) chunks.push(chunk as Buffer);
    await expect(proc.done).resolves.toMatchObject({ exitCode: 0 });
    expect(Buffer.concat(chunks).toString()).toContain('git version');
  });

  it('does not leave an unhandled rejection when nobody awaits done', async () => {
    const proc = spawnGit(['rev-parse', 'nope'], { cwd: tmp.path });
    proc.stdin.end();
    proc.stdout.resume();
    await new Promise((resolve) => setTimeout(resolve, 300));
  });
});

describe('user-supplied values', () => {
  it('refuses a leading dash, empty values and line breaks', () => {
    expect(() => userValue('--upload-pack=touch /tmp/pwned')).toThrow(Invalid);
    expect(() => userValue('-x')).toThrow(Invalid);
    expect(() => userValue('')).toThrow(Invalid);
    expect(() => userValue('a\nb')).toThrow(Invalid);
    expect(() => userValue('a\0b')).toThrow(Invalid);
    expect(userValue('main')).toBe('main');
  });

  it('places revisions after --end-of-options and paths after --', () => {
    expect(afterEndOfOptions('main', 'v1')).toEqual(['--end-of-options', 'main', 'v1']);
    expect(afterDoubleDash('src/a b.ts')).toEqual(['--', 'src/a b.ts']);
    expect(() => afterEndOfOptions('--output=/tmp/x')).toThrow(Invalid);
    expect(() => afterDoubleDash('-rf')).toThrow(Invalid);
  });
});

describe('translateGitError', () => {
  const fail = (stderr: string) =>
    translateGitError(new GitError(['x'], { exitCode: 128, stderr }));

  it('maps known messages to domain errors', () => {
    expect(
      fail("fatal: ambiguous argument 'x': unknown revision or path not in the working tree."),
    ).toBeInstanceOf(NotFound);
    expect(fail("fatal: not a git repository: '/x'")).toBeInstanceOf(NotFound);
    expect(
      fail(
        "fatal: cannot lock ref 'refs/heads/main': is at 1111111111111111111111111111111111111111 but expected 2222222222222222222222222222222222222222",
      ),
    ).toBeInstanceOf(Conflict);
    expect(fail("fatal: 'a..b' is not a valid branch name")).toBeInstanceOf(Invalid);
  });

  it('leaves unknown failures as GitError', () => {
    expect(fail('fatal: something else entirely')).toBeInstanceOf(GitError);
  });
});
