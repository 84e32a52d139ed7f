/**
 * The starting environment and expression contexts of a job, named as GitHub documents them
 * (`GITHUB_*`, `RUNNER_*`, `CI`), with Gitea's `GITEA_*` twins.
 */
import { arch, platform } from 'node:os';
import type { HostInput, TaskInput } from './task-input.ts';

/** Directories of one task. */
export type TaskDirs = {
  /** The task's own directory, holding the others but the caches; removed after the job. */
  readonly root: string;
  readonly workspace: string;
  /** HOME of a confined job: its own, empty at the start, never the runner's. */
  readonly home: string;
  readonly temp: string;
  readonly toolCache: string;
  readonly eventPath: string;
  readonly fileCommands: string;
  readonly actions: string;
};

const RUNNER_OS: Record<string, string> = { linux: 'Linux', darwin: 'macOS', win32: 'Windows' };
const RUNNER_ARCH: Record<string, string> = { x64: 'X64', arm64: 'ARM64', arm: 'ARM', ia32: 'X86' };

/** `runner.os` / RUNNER_OS for this machine. */
export function runnerOs(): string {
  return RUNNER_OS[platform()] ?? platform();
}

/** `runner.arch` / RUNNER_ARCH for this machine. */
export function runnerArch(): string {
  return RUNNER_ARCH[arch()] ?? arch();
}

/** Host variables a job inherits; everything else of the runner's own environment stays out. */
const INHERITED = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'USER', 'LOGNAME', 'SHELL', 'TMPDIR'];

function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : String(value);
}

/** The `github` context of the job: the server's, with the runner's own paths filled in. */
export function githubContext(task: TaskInput, dirs: TaskDirs): Record<string, unknown> {
  return {
    ...task.context,
    workspace: dirs.workspace,
    event_path: dirs.eventPath,
    action: '',
    action_path: '',
    env: '',
    path: '',
  };
}

/** Where `uses: owner/name` is fetched from: the task's setting, else the instance itself. */
export function actionsUrl(task: TaskInput, host: HostInput): string {
  const c = task.context;
  const url = text(c.forgejo_default_actions_url) || text(c.gitea_default_actions_url);
  return (url || host.instance).replace(/\/+$/, '');
}

/** The environment every step starts from. */
export function baseEnv(task: TaskInput, host: HostInput, dirs: TaskDirs): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED) {
    const value = host.hostEnv[key];
    if (value !== undefined) env[key] = value;
  }
  const account = host.confinement?.account;
  if (host.confinement !== undefined) {
    // The runner's own home and temp directory may hold what a confined job must not see.
    env.HOME = dirs.home;
    delete env.TMPDIR;
  }
  if (account !== undefined) {
    env.USER = account.name;
    env.LOGNAME = account.name;
  }
  const github = githubContext(task, dirs);
  const g = (key: string) => text(github[key]);
  const token = task.secrets.GITHUB_TOKEN ?? g('token');
  const server = (g('server_url') || host.instance).replace(/\/+$/, '');
  const vars: Record<string, string> = {
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: dirs.workspace,
    GITHUB_EVENT_PATH: dirs.eventPath,
    GITHUB_SHA: g('sha'),
    GITHUB_REF: g('ref'),
    GITHUB_REF_NAME: g('ref_name'),
    GITHUB_REF_TYPE: g('ref_type'),
    GITHUB_HEAD_REF: g('head_ref'),
    GITHUB_BASE_REF: g('base_ref'),
    GITHUB_REPOSITORY: g('repository'),
    GITHUB_REPOSITORY_OWNER: g('repository_owner'),
    GITHUB_SERVER_URL: g('server_url'),
    // Never empty: the toolkit's clients fall back to api.github.com, sending the token there.
    GITHUB_API_URL: g('api_url') || `${server}/api/v1`,
    GITHUB_GRAPHQL_URL: g('graphql_url') || `${server}/api/graphql`,
    GITHUB_RUN_ID: g('run_id'),
    GITHUB_RUN_NUMBER: g('run_number'),
    GITHUB_RUN_ATTEMPT: g('run_attempt') || '1',
    GITHUB_ACTOR: g('actor'),
    GITHUB_TRIGGERING_ACTOR: g('triggering_actor') || g('actor'),
    GITHUB_EVENT_NAME: g('event_name'),
    GITHUB_WORKFLOW: g('workflow'),
    GITHUB_WORKFLOW_REF: g('workflow_ref'),
    GITHUB_JOB: g('job'),
    GITHUB_RETENTION_DAYS: g('retention_days'),
    RUNNER_OS: runnerOs(),
    RUNNER_ARCH: runnerArch(),
    RUNNER_NAME: host.runnerName,
    RUNNER_TEMP: dirs.temp,
    RUNNER_TOOL_CACHE: dirs.toolCache,
    RUNNER_ENVIRONMENT: 'self-hosted',
    ACTIONS_RUNTIME_URL: `${host.instance.replace(/\/+$/, '')}/api/actions_pipeline/`,
    ACTIONS_RESULTS_URL: host.instance.replace(/\/+$/, ''),
    ACTIONS_RUNTIME_TOKEN: g('gitea_runtime_token') || token,
    // The instance's cache service (`actions/cache`); the client appends `_apis/…` to it.
    ACTIONS_CACHE_URL: `${host.instance.replace(/\/+$/, '')}/api/actions_cache/`,
  };
  for (const [key, value] of Object.entries(vars)) {
    env[key] = value;
    if (key.startsWith('GITHUB_')) env[`GITEA_${key.slice('GITHUB_'.length)}`] = value;
  }
  return env;
}

/** The `runner` context. */
export function runnerContext(host: HostInput, dirs: TaskDirs): Record<string, unknown> {
  return {
    name: host.runnerName,
    os: runnerOs(),
    arch: runnerArch(),
    temp: dirs.temp,
    tool_cache: dirs.toolCache,
    environment: 'self-hosted',
  };
}

/** The `needs` context: outputs and result of each job this one depends on. */
export function needsContext(task: TaskInput): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(task.needs).map(([id, need]) => [
      id,
      { outputs: need.outputs, result: need.result },
    ]),
  );
}
