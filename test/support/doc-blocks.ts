import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');

export type ShellBlock = { readonly tag: string | undefined; readonly script: string };

/**
 * The fenced shell blocks of a page under docs/, in order, each with the name after `test=` in
 * its info string (```` ```sh test=postgres ````), which says which test runs it.
 */
export function shellBlocks(page: string): ShellBlock[] {
  const text = readFileSync(join(ROOT, 'docs', page), 'utf8');
  return [...text.matchAll(/^```(sh|bash|shell|console)([^\n]*)\n([\s\S]*?)^```$/gm)].map(
    (match) => ({ tag: /\btest=(\S+)/.exec(match[2] ?? '')?.[1], script: match[3] ?? '' }),
  );
}

export type ScriptResult = { code: number | null; stdout: string; stderr: string };

/** Runs a block with bash, stopping at the first failing command, as a reader pasting it would. */
export function runScript(
  script: string,
  env: Record<string, string>,
  cwd = ROOT,
): Promise<ScriptResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
      env,
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
