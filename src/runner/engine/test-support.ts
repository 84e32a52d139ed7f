/**
 * Helpers for the engine's tests that run jobs with actions: a job run into a recording sink, and
 * actions published as git repositories of a local actions source. Not used by production code.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { runJob } from './job.ts';
import type { Conclusion, JobSink } from './task-input.ts';

/** What a test job did: its result, step conclusions and log. */
export type TestJobRun = {
  readonly result: Conclusion;
  readonly outputs: Record<string, string>;
  readonly results: Conclusion[];
  readonly lines: string[];
  readonly text: string;
};

/** Runs `workflow` as a task under `workRoot`, with `context` as the task's `github` context. */
export async function runTestJob(
  workRoot: string,
  workflow: string,
  options: { context?: Record<string, unknown>; runnerName?: string } = {},
): Promise<TestJobRun> {
  const lines: string[] = [];
  const results: Conclusion[] = [];
  const sink: JobSink = {
    line: (l) => lines.push(l),
    stepStarted: () => {},
    stepFinished: (_, c) => results.push(c),
  };
  const host = {
    workRoot,
    runnerName: options.runnerName ?? 'r',
    instance: 'http://127.0.0.1:1',
    hostEnv: { PATH: process.env.PATH, HOME: process.env.HOME },
    killGraceMs: 500,
  };
  const context = options.context ?? {};
  const task = { id: '1', workflowPayload: workflow, context, secrets: {}, vars: {}, needs: {} };
  const outcome = await runJob(task, host, sink, new AbortController().signal);
  return { ...outcome, results, lines, text: lines.join('\n') };
}

/**
 * Commits `files` as `owner/repo` of the actions source in `source`, tagged `tag` (each tag on a
 * history of its own, so one repository can hold several releases).
 */
export async function publishAction(
  source: string,
  full: string,
  tag: string,
  files: Record<string, string>,
): Promise<void> {
  const repo = join(source, full);
  await mkdir(repo, { recursive: true });
  const g = (...args: string[]) =>
    execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@e', ...args]);
  if (!existsSync(join(repo, '.git'))) g('init', '-q', '-b', `release-${tag}`);
  else g('checkout', '-q', '--orphan', `release-${tag}`);
  g('rm', '-rfq', '--ignore-unmatch', '.');
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(repo, path)), { recursive: true });
    await writeFile(join(repo, path), text);
  }
  g('add', '.');
  g('commit', '-q', '-m', tag);
  g('tag', '-f', tag);
}
