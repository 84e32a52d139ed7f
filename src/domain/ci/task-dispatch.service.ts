import { BoundedMap } from '../../lib/bounded-map.ts';
import type { CacheRegistry } from '../../lib/cache-registry.ts';
import { randomHex, sha256Hex } from '../../lib/crypto.ts';
import type { RunnerScope } from '../runners/runner.types.ts';
import { type CallScope, callScope, type NeededJob } from './call-context.ts';
import type { CiTask, WorkflowRun } from './ci.types.ts';
import type { CiJobStore } from './ci-job.store.ts';
import type { CiSecretService } from './ci-secret.service.ts';
import type { CiTaskService } from './ci-task.service.ts';
import type { CiTaskStore } from './ci-task.store.ts';
import type { CiVariableService } from './ci-variable.service.ts';
import type { RuntimeTokens } from './runtime-token.ts';
import { ACTIONS_SOURCE_PATH, taskContext } from './task-context.ts';
import type { TaskRunnerStore } from './task-runner.store.ts';
import { type TasksVersions, versionScopeOf } from './tasks-version.ts';
import { substituteInputs } from './workflow/inputs-substitution.ts';
import type { JobStatus } from './workflow/job-status.ts';
import type { WorkflowRunStore } from './workflow-run.store.ts';

export type { NeededJob };

/** A task handed to a runner, in domain terms; the edge turns it into `runner.v1.Task`. */
export type TaskAssignment = {
  readonly id: number;
  readonly workflowPayload: string;
  readonly context: Record<string, unknown>;
  readonly secrets: Record<string, string>;
  readonly vars: Record<string, string>;
  readonly needs: Record<string, NeededJob>;
};

export type FetchResult = {
  readonly task: TaskAssignment | undefined;
  /** Never 0. */
  readonly tasksVersion: number;
};

export type TaskDispatchDeps = {
  /** Where the runner scopes' cache is declared (the composition root's registry). */
  readonly caches?: CacheRegistry;
  readonly stores: {
    readonly runs: WorkflowRunStore;
    readonly jobs: CiJobStore;
    readonly tasks: CiTaskStore;
    readonly taskRunners: TaskRunnerStore;
  };
  readonly tasks: CiTaskService;
  readonly versions: TasksVersions;
  readonly secrets: CiSecretService;
  readonly variables: CiVariableService;
  /** Where bare `uses: org/action` resolves; default the instance's actions source. */
  readonly actionsUrl: string | undefined;
  readonly logRetentionDays: number;
  /** Mints each task's `ACTIONS_RUNTIME_TOKEN`, valid as long as a task may run. */
  readonly runtimeTokens?: { mint: RuntimeTokens['mint']; lifetimeMs: number };
};

/** How many pending jobs one poll looks at for a label match. */
const CANDIDATES = 50;

/**
 * FetchTask: hands the oldest pending job in the runner's scope whose `runs-on` labels the runner
 * all has to that runner, with a fresh task token (only its SHA-256 is stored). The claim is a
 * conditional UPDATE (`status = 'pending' AND runner_id IS NULL`), so two replicas polling at once
 * never hand one job out twice; the loser moves to the next candidate.
 */
/** The runner asking for work: who it is and the labels it declared. */
export type PollingRunner = { readonly id: string; readonly labels: readonly string[] };

export class TaskDispatchService {
  readonly #deps: TaskDispatchDeps;
  /** Runner id → scope. A runner's scope never changes, so this is read once per runner. */
  readonly #scopes = new BoundedMap<string, RunnerScope>(10_000);

  constructor(deps: TaskDispatchDeps) {
    this.#deps = deps;
    deps.caches?.add(
      { name: 'runner_scopes', key: 'runner id', freshness: 'immutable', bound: '10,000 runners' },
      this.#scopes,
    );
  }

  async fetchTask(
    runner: PollingRunner,
    knownVersion: number,
    baseUrl: string,
  ): Promise<FetchResult> {
    const { versions } = this.#deps;
    const scope = await this.#scopeOf(runner.id);
    if (scope === undefined)
      return { task: undefined, tasksVersion: await versions.current('global') };
    const tasksVersion = await versions.current(versionScopeOf(scope));
    // Nothing became pending in this scope since the runner last looked: no query at all.
    if (knownVersion === tasksVersion) return { task: undefined, tasksVersion };
    for (const candidate of await this.#deps.stores.tasks.listCandidates(scope, CANDIDATES)) {
      if (!candidate.runsOn.every((label) => runner.labels.includes(label))) continue;
      const token = randomHex(20);
      const claimed = await this.#deps.tasks.claimTask(
        candidate.id,
        runner.id,
        Date.now(),
        sha256Hex(token),
      );
      if (claimed === undefined) continue;
      try {
        return { task: await this.#assignment(claimed, token, baseUrl), tasksVersion };
      } catch (error) {
        await this.#deps.tasks.releaseClaim(claimed.id, runner.id);
        throw error;
      }
    }
    return { task: undefined, tasksVersion };
  }

  async #scopeOf(runnerId: string): Promise<RunnerScope | undefined> {
    const known = this.#scopes.get(runnerId);
    if (known !== undefined) return known;
    const scope = await this.#deps.stores.taskRunners.findRunnerScope(runnerId);
    if (scope === undefined) return undefined;
    this.#scopes.set(runnerId, scope);
    return scope;
  }

  async #assignment(task: CiTask, token: string, baseUrl: string): Promise<TaskAssignment> {
    const { stores, secrets, variables } = this.#deps;
    const run = await stores.runs.findById(task.runId);
    if (run === undefined) throw new Error(`task ${task.id} has no run`);
    const repo = await stores.runs.getRepoName(run.repoId);
    const stored = run.forkPull ? {} : await secrets.secretsForTask(task.id);
    const context = taskContext({
      run,
      task,
      owner: repo.owner,
      repoName: repo.name,
      token,
      baseUrl,
      actionsUrl: this.#deps.actionsUrl ?? `${baseUrl}${ACTIONS_SOURCE_PATH}`,
      retentionDays: this.#deps.logRetentionDays,
      runtimeToken: this.#deps.runtimeTokens?.mint(
        { taskId: task.id, runBackendId: run.id, jobBackendId: String(task.id) },
        Date.now() + this.#deps.runtimeTokens.lifetimeMs,
      ),
    });
    const vars = await variables.variablesForTask(task.id);
    const scope = await this.#scope(run, task, { github: context, vars }, stored);
    return {
      id: task.id,
      workflowPayload:
        scope.inputs === undefined ? task.payload : substituteInputs(task.payload, scope.inputs),
      // A called workflow's job sees its own id and the inputs its caller handed it.
      context:
        scope.inputs === undefined
          ? context
          : {
              ...context,
              job: task.jobKey.slice(task.jobKey.lastIndexOf('/') + 1),
              event: {
                ...(isObject(run.eventPayload) ? run.eventPayload : {}),
                inputs: scope.inputs,
              },
            },
      // The task token last, so a stored secret can never shadow it.
      secrets: { ...scope.secrets, GITHUB_TOKEN: token, GITEA_TOKEN: token },
      vars,
      needs: scope.needs,
    };
  }

  /**
   * `needs`, `inputs` and `secrets` of the task (call-context.ts): only a task that sits in a
   * called workflow or needs a job of one reads every job of its run; others read their needs.
   */
  async #scope(
    run: WorkflowRun,
    task: CiTask,
    contexts: { github: Record<string, unknown>; vars: Record<string, string> },
    stored: Record<string, string>,
  ): Promise<CallScope> {
    const { jobs: jobStore } = this.#deps.stores;
    const inCall = task.jobKey.includes('/') || task.needs.some((key) => key.includes('/'));
    if (!inCall && task.needs.length === 0)
      return { needs: {}, inputs: undefined, secrets: stored };
    const jobs = inCall
      ? await jobStore.listOfRun(run.id)
      : await jobStore.listByKeys(run.id, task.needs);
    const outputs = await jobStore.listOutputs(jobs.map((job) => job.id));
    const facts = jobs.map((job) => ({
      jobKey: job.jobKey,
      status: job.status as JobStatus,
      outputs: Object.fromEntries(
        outputs.filter((output) => output.taskId === job.id).map((o) => [o.name, o.value]),
      ),
    }));
    const event = contexts.github.event;
    const inputs = isObject(event) ? (event.inputs ?? {}) : {};
    return callScope(task, run.calls, facts, {
      contexts: { ...contexts, inputs },
      secrets: stored,
    });
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
