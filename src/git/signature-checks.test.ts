import { execFile, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SizedLru } from '../lib/sized-lru.ts';
import { KILN_HOOKS_DIR } from './kiln-hooks.ts';
import { type SignatureVerdicts, writePushRules } from './push-rules.ts';

const run = promisify(execFile);
const EMAIL = 'signer@example.test';

/**
 * The pre-receive hook's signature checks, driven directly: how many run at once when several
 * pushes of signed commits arrive together, and which commits are asked about again. An
 * `ssh-keygen` on PATH in front of the real one counts the checks and how many overlap.
 */
describe('signature checks of pushes', () => {
  let dir: string;
  let repo: string;
  let bin: string;
  let base: string;
  let tip: string;
  let signers: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'kiln-signature-slots-'));
    repo = path.join(dir, 'repositories', 'owner', 'signed.git');
    const work = path.join(dir, 'work');
    const key = path.join(dir, 'key');
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
    signers = `${EMAIL} namespaces="git" ${(await readFile(`${key}.pub`, 'utf8')).split(' ').slice(0, 2).join(' ')}\n`;
    await run('git', ['init', '-q', '--bare', repo]);
    await run('git', ['init', '-q', work]);
    const git = (...args: string[]) =>
      run('git', ['-C', work, '-c', `user.email=${EMAIL}`, '-c', 'user.name=Signer', ...args]);
    await git('commit', '-q', '--allow-empty', '-m', 'base');
    for (let i = 0; i < 3; i++) {
      await git(
        ...['-c', 'gpg.format=ssh', '-c', `user.signingKey=${key}`],
        ...['commit', '-q', '--allow-empty', '-S', '-m', `signed ${i}`],
      );
    }
    base = (await git('rev-parse', 'HEAD~3')).stdout.trim();
    tip = (await git('rev-parse', 'HEAD')).stdout.trim();
    await git('push', '-q', repo, 'HEAD:refs/heads/main');
    const real = (await run('sh', ['-c', 'command -v ssh-keygen'])).stdout.trim();
    bin = path.join(dir, 'bin');
    await mkdir(bin);
    const counter = [
      '#!/bin/sh',
      'mkdir "$KEYGEN_LOG/$$"',
      'ls "$KEYGEN_LOG" | wc -l >> "$KEYGEN_LOG.counts"',
      'sleep 0.05',
      'rmdir "$KEYGEN_LOG/$$"',
      `exec ${real} "$@"`,
    ];
    await writeFile(path.join(bin, 'ssh-keygen'), `${counter.join('\n')}\n`);
    await chmod(path.join(bin, 'ssh-keygen'), 0o755);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** `pushes` hooks at once over the same three signed commits; their codes and the counts. */
  async function hooksAtOnce(
    pushes: number,
    env: (ruleEnv: Record<string, string>) => object,
    kept?: { verdicts: SignatureVerdicts; signers: string },
  ) {
    const log = path.join(dir, `log-${Math.random().toString(36).slice(2)}`);
    await mkdir(log);
    const files = await writePushRules(
      [
        {
          refPattern: 'refs/heads/*',
          signed: true,
          unprotectedOnly: false,
          protectedFiles: '',
          unprotectedFiles: '',
        },
      ],
      kept?.signers ?? signers,
      repo,
      kept?.verdicts,
    );
    try {
      const codes = await Promise.all(
        Array.from({ length: pushes }, () => {
          const hook = spawn(path.join(KILN_HOOKS_DIR, 'pre-receive'), [], {
            env: {
              PATH: `${bin}:${process.env.PATH}`,
              GIT_DIR: repo,
              KEYGEN_LOG: log,
              ...env(files?.env ?? {}),
            },
            stdio: ['pipe', 'ignore', 'inherit'],
          });
          hook.stdin.end(`${base} ${tip} refs/heads/main\n`);
          return new Promise<number | null>((resolve) => hook.once('exit', resolve));
        }),
      );
      const counted = await readFile(`${log}.counts`, 'utf8').catch(() => '');
      const counts = counted.trim().split('\n').filter(Boolean).map(Number);
      return { codes, counts };
    } finally {
      await files?.dispose();
    }
  }

  it('verifies every signed commit of every push, never more than the slots at once', async () => {
    const { codes, counts } = await hooksAtOnce(6, (ruleEnv) => ({
      ...ruleEnv,
      KILN_SIGNATURE_SLOT_COUNT: '2',
    }));
    expect(codes).toEqual(Array(6).fill(0));
    // git asks ssh-keygen at least once a commit (who signed it, then whether it verifies).
    expect(counts.length).toBeGreaterThanOrEqual(18);
    expect(Math.max(...counts)).toBeLessThanOrEqual(2);
  });

  it('would run them all at once without the slots', async () => {
    const { codes, counts } = await hooksAtOnce(6, (ruleEnv) => ({
      ...ruleEnv,
      KILN_SIGNATURE_SLOTS: '',
    }));
    expect(codes).toEqual(Array(6).fill(0));
    expect(Math.max(...counts)).toBeGreaterThan(2);
  });

  it('asks again for no commit found good under the same signers, and for all under others', async () => {
    const verdicts: SignatureVerdicts = new SizedLru(1024 * 1024);
    const first = await hooksAtOnce(1, (ruleEnv) => ruleEnv, { verdicts, signers });
    expect(first.codes).toEqual([0]);
    expect(first.counts.length).toBeGreaterThanOrEqual(3);
    const again = await hooksAtOnce(2, (ruleEnv) => ruleEnv, { verdicts, signers });
    expect(again.codes).toEqual([0, 0]);
    expect(again.counts).toEqual([]);
    const otherKeys = `${signers}other@example.test namespaces="git" ${signers.split(' ').slice(2).join(' ')}`;
    const changed = await hooksAtOnce(1, (ruleEnv) => ruleEnv, { verdicts, signers: otherKeys });
    expect(changed.codes).toEqual([0]);
    expect(changed.counts.length).toBeGreaterThanOrEqual(3);
  });

  it('keeps no verdict for a refused commit', async () => {
    const verdicts: SignatureVerdicts = new SizedLru(1024 * 1024);
    const stranger = `stranger@example.test namespaces="git" ${signers.split(' ').slice(2).join(' ')}`;
    const refused = await hooksAtOnce(1, (ruleEnv) => ruleEnv, { verdicts, signers: stranger });
    expect(refused.codes).toEqual([1]);
    const retried = await hooksAtOnce(1, (ruleEnv) => ruleEnv, { verdicts, signers: stranger });
    expect(retried.codes).toEqual([1]);
    expect(retried.counts.length).toBeGreaterThanOrEqual(1);
  });
});
