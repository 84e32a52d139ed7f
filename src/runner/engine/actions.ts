/**
 * `uses:` steps on the host: JavaScript actions (`runs.using: node20|node22|node24`, with `pre`,
 * `main` and `post`) run with this runner's own Node, and composite actions run their steps in
 * turn. Remote actions are fetched with git from the task's actions source and cached per ref;
 * `./path` names an action in the workspace. Docker actions are refused with a clear message.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { handOver } from './confinement.ts';
import { condition, interpolate } from './expressions.ts';
import { readJobFile } from './job-files.ts';
import type { JobState } from './job-state.ts';
import { insideCache, remoteAction } from './remote-action.ts';
import { shellCommand, which } from './shell.ts';
import type { StepRun } from './step.ts';
import { execute, type StepExecution } from './step-exec.ts';
import { runProcess } from './step-process.ts';

type Loose = Record<string, unknown>;
const NODE_RUNTIMES = new Set(['node12', 'node16', 'node20', 'node22', 'node24']);

function object(value: unknown): Loose {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Loose)
    : {};
}

async function git(
  job: JobState,
  args: string[],
  cwd: string,
  signal: AbortSignal,
): Promise<boolean> {
  const program = which('git', job.path());
  if (!program) throw new Error('git is not installed on this host: remote actions need it');
  const env = { PATH: job.path(), HOME: job.base.HOME ?? '/tmp', GIT_TERMINAL_PROMPT: '0' };
  const end = await runProcess({
    program,
    args,
    cwd,
    env,
    onLines: (lines) => job.logLines(lines),
    signal,
    killGraceMs: job.host.killGraceMs,
  });
  return end.exitCode === 0;
}

/** A remote action fetched into the cache (once per source and ref); answers its directory. */
async function fetchRemote(job: JobState, uses: string, signal: AbortSignal): Promise<string> {
  const action = remoteAction(uses, job.actionsUrl);
  const { url, ref } = action;
  const cached = join(job.dirs.actions, action.cacheDir);
  // remoteAction keeps every part a plain name; this states the invariant where it matters.
  const dir = join(cached, action.sub);
  if (!insideCache(job.dirs.actions, cached) || !insideCache(cached, dir)) {
    throw new Error(`"uses: ${uses}" names a directory outside the actions cache`);
  }
  if (!existsSync(cached)) {
    job.log(`fetching ${url.slice(action.source.length + 1)}@${ref} from ${action.source}`);
    const temporary = `${cached}.${randomUUID()}`;
    await mkdir(dirname(temporary), { recursive: true });
    const ok =
      (await git(job, ['init', '-q', temporary], job.dirs.temp, signal)) &&
      (await git(job, ['fetch', '-q', '--depth=1', url, ref], temporary, signal)) &&
      (await git(job, ['checkout', '-q', 'FETCH_HEAD'], temporary, signal));
    if (!ok) {
      await rm(temporary, { recursive: true, force: true });
      throw new Error(`cannot fetch ${url.slice(action.source.length + 1)}@${ref} from ${url}`);
    }
    await rename(temporary, cached).catch(() => rm(temporary, { recursive: true, force: true }));
  }
  return dir;
}

async function readAction(job: JobState, dir: string): Promise<Loose> {
  // Roots are real paths: the work root may sit behind a link (/tmp on some systems).
  const roots = [job.dirs.workspace, job.dirs.actions].map((root) => realpathSync(root));
  for (const name of ['action.yml', 'action.yaml']) {
    const file = join(dir, name);
    if (existsSync(file)) return object(parse(await readJobFile(file, roots)));
  }
  throw new Error(`no action.yml in ${dir}`);
}

/** `with:` over the action's input defaults, each evaluated; also as `INPUT_*` variables. */
function inputs(run: StepRun, action: Loose): Record<string, string> {
  const { job } = run;
  const contexts = job.contexts(job.env(run.env));
  const values: Record<string, string> = {};
  for (const [name, spec] of Object.entries(object(action.inputs))) {
    const fallback = object(spec).default;
    if (fallback !== undefined) values[name] = interpolate(String(fallback), contexts, job.status);
  }
  for (const [name, value] of Object.entries(run.spec.with)) {
    values[name] = interpolate(value, contexts, job.status);
  }
  return values;
}

function inputEnv(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).map(([name, value]) => [
      `INPUT_${name.replaceAll(' ', '_').toUpperCase()}`,
      value,
    ]),
  );
}

async function runNode(
  run: StepRun,
  dir: string,
  runs: Loose,
  values: Record<string, string>,
): Promise<StepExecution> {
  const { job } = run;
  const env = { ...run.env, ...inputEnv(values), GITHUB_ACTION_PATH: dir };
  const phase = (script: string, signal: AbortSignal, state: Record<string, string>) =>
    execute(job, {
      program: process.execPath,
      args: [resolve(dir, script)],
      cwd: job.dirs.workspace,
      env,
      signal,
      state,
      ...(run.timeoutMs !== undefined ? { timeoutMs: run.timeoutMs } : {}),
    });
  let state: Record<string, string> = {};
  if (typeof runs.pre === 'string') {
    const pre = await phase(runs.pre, run.signal, state);
    state = { ...state, ...pre.state };
    if (!pre.ok) return pre;
  }
  const main = await phase(String(runs.main ?? ''), run.signal, state);
  state = { ...state, ...main.state };
  if (typeof runs.post === 'string') {
    const post = runs.post;
    const postIf = typeof runs['post-if'] === 'string' ? runs['post-if'] : 'always()';
    job.posts.push(async () => {
      if (!condition(postIf, job.contexts(), job.status)) return;
      job.log(`post: ${run.spec.uses}`);
      await phase(post, new AbortController().signal, state);
    });
  }
  return main;
}

async function runComposite(
  run: StepRun,
  dir: string,
  runs: Loose,
  action: Loose,
  values: Record<string, string>,
): Promise<StepExecution> {
  const { job } = run;
  const steps: Record<
    string,
    { outputs: Record<string, string>; outcome: string; conclusion: string }
  > = {};
  let ok = true;
  for (const [index, raw] of (Array.isArray(runs.steps) ? runs.steps : []).entries()) {
    const step = object(raw);
    const env: Record<string, string> = { ...run.env, GITHUB_ACTION_PATH: dir };
    const contexts = () => job.contexts(job.env(env), { inputs: values, steps });
    const status = ok ? job.status : 'failure';
    if (!condition(step.if as string | boolean | undefined, contexts(), status)) continue;
    for (const [key, value] of Object.entries(object(step.env)))
      env[key] = interpolate(String(value), contexts(), status);
    if (typeof step.run !== 'string')
      throw new Error(
        `composite step ${index + 1} of ${run.spec.uses}: only run: steps are supported`,
      );
    const shell = typeof step.shell === 'string' ? step.shell : 'bash';
    const file = join(job.dirs.temp, `${randomUUID()}.sh`);
    await writeFile(file, interpolate(step.run, contexts(), status), { mode: 0o700, flag: 'wx' });
    await handOver(job.host.confinement, file);
    const command = shellCommand(shell, file, job.path());
    const cwd =
      typeof step['working-directory'] === 'string'
        ? resolve(job.dirs.workspace, step['working-directory'])
        : job.dirs.workspace;
    const result = await execute(job, {
      program: command.program,
      args: command.args,
      cwd,
      env,
      signal: run.signal,
    });
    const outcome = result.ok ? 'success' : 'failure';
    if (typeof step.id === 'string')
      steps[step.id] = { outputs: result.outputs, outcome, conclusion: outcome };
    if (!result.ok) ok = false;
  }
  const outputs: Record<string, string> = {};
  for (const [name, spec] of Object.entries(object(action.outputs))) {
    outputs[name] = interpolate(
      String(object(spec).value ?? ''),
      job.contexts(job.env(run.env), { inputs: values, steps }),
      job.status,
    );
  }
  return {
    exitCode: ok ? 0 : 1,
    timedOut: false,
    cancelled: run.signal.aborted,
    ok,
    outputs,
    state: {},
  };
}

/** Runs the action a step names. */
export async function runAction(run: StepRun): Promise<StepExecution> {
  const uses = run.spec.uses ?? '';
  if (uses.startsWith('docker://')) {
    throw new Error(
      `"uses: ${uses}" is a Docker action: this runner runs jobs on its host and does not run containers`,
    );
  }
  const dir = uses.startsWith('./')
    ? resolve(run.job.dirs.workspace, uses)
    : await fetchRemote(run.job, uses, run.signal);
  const action = await readAction(run.job, dir);
  const runs = object(action.runs);
  const using = String(runs.using ?? '');
  const values = inputs(run, action);
  if (NODE_RUNTIMES.has(using)) return runNode(run, dir, runs, values);
  if (using === 'composite') return runComposite(run, dir, runs, action, values);
  if (using === 'docker') {
    throw new Error(
      `"uses: ${uses}" is a Docker action: this runner runs jobs on its host and does not run containers`,
    );
  }
  throw new Error(`"uses: ${uses}": unknown runs.using "${using}"`);
}
