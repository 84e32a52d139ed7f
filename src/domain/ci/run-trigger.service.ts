import type { CatFilePool } from '../../git/cat-file-pool.ts';
import { mergeBase } from '../../git/diff.ts';
import { readCommit } from '../../git/read-objects.ts';
import { findBranch, type RefChange } from '../../git/refs.ts';
import { changedPaths, readWorkflowFiles } from '../../git/workflow-files.ts';
import { errorMessage } from '../../lib/thrown.ts';
import { Invalid } from '../errors.ts';
import type { Push } from '../repos/push-events.ts';
import type { RepoService } from '../repos/repo.service.ts';
import { atLeast, type Repository } from '../repos/repo.types.ts';
import { isActionsBot } from '../users/actions-bot.ts';
import type { User } from '../users/user.types.ts';
import { calledWorkflowLoader } from './called-workflows.ts';
import type { WorkflowRun } from './ci.types.ts';
import { fileName, githubContext } from './event-payloads.ts';
import { type ForkPullGate, groupOf } from './fork-approval.ts';
import { type ParsedFile, parseFile, parseFiles } from './parsed-files.ts';
import type { PullTrigger } from './pull-trigger.ts';
import type { RunLifecycle } from './run-lifecycle.ts';
import type { ScheduleRecords } from './schedule.service.ts';
import { type TasksVersions, versionScopesOfRepo } from './tasks-version.ts';
import { pullTriggered, pushTriggered, type Triggered } from './trigger-events.ts';
import { type ExpandedJob, expandRun } from './workflow/call-expansion.ts';
import { type DispatchInput, dispatchInputs, type Triggers } from './workflow/triggers.ts';
import { concurrencyOf, WorkflowError } from './workflow/workflow-parse.ts';
import type { WorkflowParser } from './workflow/workflow-parser.ts';
import type { NewRun, WorkflowRunStore } from './workflow-run.store.ts';

export type RunTriggerDeps = {
  readonly runs: WorkflowRunStore;
  readonly repos: RepoService;
  readonly catFiles: CatFilePool;
  readonly versions: TasksVersions;
  readonly lifecycle: RunLifecycle;
  /** Whether a pull request's runs wait for a writer's approval (fork-approval.ts). */
  readonly forkGate: Pick<ForkPullGate, 'mustAsk'>;
  /**
   * Parses and plans workflow files. INVARIANT: no workflow file a user pushes (or calls) is
   * parsed on the request thread: the server's parser runs off it, bounded in time
   * (src/wiring/workflow-parser-pool.ts); every parse and plan here goes through it.
   */
  readonly parser: WorkflowParser;
  /** Where the default branch's `on: schedule` crons are kept. */
  readonly schedules?: ScheduleRecords;
  /** What `${{ vars.* }}` reads in `concurrency` (CiVariableService); none without it. */
  readonly variables?: {
    variablesForRepo(repoId: string, ownerId: string): Promise<Record<string, string>>;
  };
  /** A repository by owner and name, for `uses: owner/repo/…@ref` (called-workflows.ts). */
  readonly findRepoByName?: (owner: string, name: string) => Promise<Repository | undefined>;
};

/**
 * Jobs one push (every ref it moves, every workflow file) or one pull request event may start.
 * A run that would take the total past it is recorded failed, naming the limit, and starts none;
 * with a run capped at 256 jobs (workflow-parse.ts), four full runs fit.
 */
export const MAX_JOBS_PER_PUSH = 1024;

/** What is left of an event's jobs as its runs are planned. */
type JobBudget = { left: number };

/**
 * Turns pushes into workflow runs: for every ref a push created or moved, the workflow files at
 * the new tip are read, each whose `on: push` filters match becomes a run, and the unfinished runs
 * it supersedes are cancelled (same repository, ref, workflow and event — Gitea's default — or the
 * same `concurrency` group with `cancel-in-progress`); a run of a group without it queues behind
 * the group's unfinished run (run-lifecycle.ts). A deleting push starts nothing. A workflow
 * that does not parse is recorded as a failed run whose error names the line.
 */
export class RunTriggerService {
  readonly #deps: RunTriggerDeps;

  constructor(deps: RunTriggerDeps) {
    this.#deps = deps;
  }

  /**
   * What CI does on the `push` event (`wiring/ci.ts`). Returns the runs created. A push made
   * with a task token (the actions bot) starts none, as in Gitea and GitHub, or a workflow that pushes would trigger
   * itself without end; the default branch's crons still follow it (they cannot loop).
   */
  async onPush(push: Push): Promise<WorkflowRun[]> {
    if (isActionsBot(push.pusher)) {
      await this.#followSchedules(push);
      return [];
    }
    const created: WorkflowRun[] = [];
    const budget: JobBudget = { left: MAX_JOBS_PER_PUSH };
    for (const change of push.changes) {
      if (change.newSha === null) continue;
      created.push(...(await this.#pushed(push, change, change.newSha, budget)));
    }
    return created;
  }

  async #followSchedules(push: Push): Promise<void> {
    const { schedules, repos, catFiles } = this.#deps;
    if (!schedules) return;
    const branch = `refs/heads/${await repos.defaultBranch(push.repo)}`;
    const tip = push.changes.find((change) => change.ref === branch)?.newSha;
    if (!tip) return;
    await schedules.record(
      push.repo.id,
      await parseFiles(
        await readWorkflowFiles(catFiles, repos.handle(push.repo), tip),
        this.#deps.parser,
      ),
    );
  }

  async #pushed(
    push: Push,
    change: RefChange,
    sha: string,
    budget: JobBudget,
  ): Promise<WorkflowRun[]> {
    const { repos } = this.#deps;
    return this.#runWorkflowsAt(push.repo, sha, budget, {
      compareTo: async () => change.oldSha ?? undefined,
      onFiles: async (files) => {
        const { schedules } = this.#deps;
        if (schedules && change.ref === `refs/heads/${await repos.defaultBranch(push.repo)}`) {
          await schedules.record(push.repo.id, files);
        }
      },
      describe: (title, changed) => pushTriggered(push, change, sha, title, changed),
    });
  }

  /**
   * What a pull request change starts (`subscribeCiToPulls`): runs the base repository's `on: pull_request` workflows as they
   * are at the pull's head commit (Gitea's choice), on `refs/pull/N/head`, for every action a
   * workflow may name (opened, synchronize, reopened, closed; `types` defaults to the first
   * three, as on GitHub). A pull from a fork is marked so, and its jobs get no secrets but the
   * task token; when the person whose action made the runs cannot write to the base, they wait
   * for a writer's approval, decided here with that person's access as it is now.
   */
  async onPull(event: PullTrigger): Promise<WorkflowRun[]> {
    const { pull } = event;
    const sha = pull.headSha;
    const handle = this.#deps.repos.handle(event.base);
    const needsApproval = await this.#deps.forkGate.mustAsk(event);
    return this.#runWorkflowsAt(
      event.base,
      sha,
      { left: MAX_JOBS_PER_PUSH },
      {
        compareTo: () => mergeBase(handle, `refs/heads/${pull.baseBranch}`, sha),
        describe: (title, changed) => {
          const triggered = pullTriggered(event, title, changed);
          return { ...triggered, run: { ...triggered.run, needsApproval } };
        },
      },
    );
  }

  /**
   * What a push and a pull event share: the workflow files at `sha` are read and, when there are
   * any, the commit's title and the paths changed since `compareTo` are handed to `describe`,
   * whose run is started for every file whose triggers it matches.
   */
  async #runWorkflowsAt(
    repo: Repository,
    sha: string,
    budget: JobBudget,
    event: {
      compareTo: () => Promise<string | undefined>;
      onFiles?: (files: readonly ParsedFile[]) => Promise<void>;
      describe: (title: string, changed: readonly string[]) => Triggered;
    },
  ): Promise<WorkflowRun[]> {
    const { repos, catFiles } = this.#deps;
    const handle = repos.handle(repo);
    const files = await parseFiles(
      await readWorkflowFiles(catFiles, handle, sha),
      this.#deps.parser,
    );
    await event.onFiles?.(files);
    if (files.length === 0) return [];
    const base = await event.compareTo();
    const [commit, changed] = await Promise.all([
      readCommit(catFiles, handle, sha),
      changedPaths(handle, sha, base),
    ]);
    const { run, github, matches } = event.describe(commit.message.split('\n')[0] ?? '', changed);
    const runs: WorkflowRun[] = [];
    for (const file of files) {
      const { name } = file;
      const started = await this.#startRun(
        repo,
        file,
        { ...run, workflowName: name, workflowFile: name },
        github,
        matches,
        budget,
      );
      if (started !== undefined) runs.push(started);
    }
    return runs;
  }

  /**
   * Starts a scheduled run of one workflow file as it is on the repository's default branch now
   * (the `ScheduleService` calls this for a matching cron). Nothing happens when the repository,
   * the branch or the file is gone, or the file no longer has `on: schedule`.
   */
  async onSchedule(repoId: string, workflowFile: string): Promise<WorkflowRun | undefined> {
    const { repos, catFiles } = this.#deps;
    const repo = await repos.findById(repoId);
    if (repo === undefined) return undefined;
    const handle = repos.handle(repo);
    const branch = await repos.defaultBranch(repo);
    const sha = await findBranch(handle, branch);
    if (sha === undefined) return undefined;
    const file = (await readWorkflowFiles(catFiles, handle, sha)).find(
      (candidate) => fileName(candidate) === workflowFile,
    );
    if (file === undefined) return undefined;
    const commit = await readCommit(catFiles, handle, sha);
    const ref = `refs/heads/${branch}`;
    const actor = repo.owner.handle;
    const payload = { schedule: workflowFile, repository: { full_name: `${actor}/${repo.name}` } };
    const github = { ...githubContext(repo, ref, sha, actor, payload), event_name: 'schedule' };
    return this.#startRun(
      repo,
      await parseFile(file, this.#deps.parser),
      {
        repoId,
        workflowName: workflowFile,
        workflowFile,
        event: 'schedule',
        ref,
        sha,
        triggeredBy: repo.owner.id,
        title: commit.message.split('\n')[0] ?? '',
        eventPayload: payload,
        actor,
      },
      github,
      (triggers) => triggers.has('schedule'),
      { left: MAX_JOBS_PER_PUSH },
    );
  }

  /**
   * The workflows of the default branch that can be started by hand, with their declared inputs,
   * for someone who may write to the repository (others get none: they could not start them).
   * A file that does not parse is left out.
   */
  async listDispatchable(
    actor: User | undefined,
    owner: string,
    name: string,
  ): Promise<{ file: string; branch: string; inputs: DispatchInput[] }[]> {
    const { repos, catFiles } = this.#deps;
    if (actor === undefined) return [];
    const { repo, access } = await repos.get(actor, owner, name);
    if (!atLeast(access.level, 'write')) return [];
    const handle = repos.handle(repo);
    const branch = await repos.defaultBranch(repo);
    const sha = await findBranch(handle, branch);
    if (sha === undefined) return [];
    const files = await parseFiles(
      await readWorkflowFiles(catFiles, handle, sha),
      this.#deps.parser,
    );
    return files.flatMap(({ name, parsed }) => {
      if ('error' in parsed) return [];
      const inputs = dispatchInputs(parsed.workflow.triggers);
      return inputs === undefined ? [] : [{ file: name, branch, inputs }];
    });
  }

  /**
   * `workflow_dispatch`: starts a workflow file as it is on `ref` (a branch name, or a full ref),
   * for someone who may write to the repository, with `inputs` checked against the ones it
   * declares (defaults filled in). Throws `Invalid` when the file or ref is unknown, the workflow
   * has no `workflow_dispatch` trigger, or a required input is missing.
   */
  async dispatch(
    actor: User,
    owner: string,
    name: string,
    request: { workflowFile: string; ref: string; inputs: Readonly<Record<string, string>> },
  ): Promise<WorkflowRun | undefined> {
    const { repos, catFiles } = this.#deps;
    const { repo } = await repos.require(actor, owner, name, 'write');
    const handle = repos.handle(repo);
    const ref = request.ref.startsWith('refs/') ? request.ref : `refs/heads/${request.ref}`;
    const sha = ref.startsWith('refs/heads/')
      ? await findBranch(handle, ref.slice('refs/heads/'.length))
      : undefined;
    if (sha === undefined) throw new Invalid(`unknown branch: ${request.ref}`);
    const file = (await readWorkflowFiles(catFiles, handle, sha)).find(
      (candidate) => fileName(candidate) === request.workflowFile,
    );
    if (file === undefined) throw new Invalid(`no workflow file named ${request.workflowFile}`);
    const parsedFile = await parseFile(file, this.#deps.parser);
    let declared: ReturnType<typeof dispatchInputs>;
    try {
      const { parsed } = parsedFile;
      if ('error' in parsed) throw parsed.error;
      declared = dispatchInputs(parsed.workflow.triggers);
    } catch (error) {
      throw new Invalid(`${request.workflowFile}: ${errorMessage(error)}`);
    }
    if (declared === undefined) throw new Invalid('the workflow has no workflow_dispatch trigger');
    const inputs: Record<string, string> = {};
    for (const input of declared) {
      const value = request.inputs[input.name] ?? input.default;
      if (value === undefined && input.required)
        throw new Invalid(`input ${input.name} is required`);
      if (value !== undefined) inputs[input.name] = value;
    }
    const commit = await readCommit(catFiles, handle, sha);
    const payload = {
      inputs,
      ref,
      workflow: request.workflowFile,
      repository: { full_name: `${repo.owner.handle}/${repo.name}` },
      sender: { login: actor.handle, username: actor.handle },
    };
    const github = {
      ...githubContext(repo, ref, sha, actor.handle, payload),
      event_name: 'workflow_dispatch',
    };
    return this.#startRun(
      repo,
      parsedFile,
      {
        repoId: repo.id,
        workflowName: request.workflowFile,
        workflowFile: request.workflowFile,
        event: 'workflow_dispatch',
        ref,
        sha,
        triggeredBy: actor.id,
        title: commit.message.split('\n')[0] ?? '',
        eventPayload: payload,
        actor: actor.handle,
      },
      github,
      () => true,
      { left: MAX_JOBS_PER_PUSH },
      inputs,
    );
  }

  async #startRun(
    repo: Repository,
    { file, parsed }: ParsedFile,
    base: NewRun,
    github: Record<string, unknown>,
    matches: (triggers: Triggers) => boolean,
    budget: JobBudget,
    inputs: Readonly<Record<string, string>> = {},
  ): Promise<WorkflowRun | undefined> {
    const { runs, versions, lifecycle, variables, repos, catFiles } = this.#deps;
    let plan: { run: NewRun; jobs: ExpandedJob[]; cancelGroup: boolean };
    const vars = (await variables?.variablesForRepo(repo.id, repo.owner.id)) ?? {};
    try {
      if ('error' in parsed) throw parsed.error;
      const { workflow } = parsed;
      if (!matches(workflow.triggers)) return undefined;
      const contexts = { github, vars, inputs };
      const load = calledWorkflowLoader({
        repos,
        catFiles,
        findRepoByName: this.#deps.findRepoByName ?? (async () => undefined),
      });
      const expanded = await expandRun(
        workflow,
        contexts,
        { load, parser: this.#deps.parser },
        {
          value: { repo, sha: base.sha },
          identity: `${repo.id}:${file.path}@${base.sha}`,
          label: file.path,
        },
      );
      // Groups of a run from a fork are its pull's own (`groupOf`, fork-approval.ts).
      const jobs = expanded.jobs.map((job) =>
        job.concurrency === undefined
          ? job
          : {
              ...job,
              concurrency: { ...job.concurrency, group: groupOf(base, job.concurrency.group) },
            },
      );
      if (jobs.length > budget.left) {
        throw new WorkflowError(
          `the event would start more than the ${MAX_JOBS_PER_PUSH} jobs one push may start; ` +
            `this run's ${jobs.length} were not started`,
        );
      }
      budget.left -= jobs.length;
      const written =
        workflow.concurrency === undefined
          ? undefined
          : concurrencyOf(workflow.concurrency, contexts);
      const concurrency =
        written === undefined ? undefined : { ...written, group: groupOf(base, written.group) };
      plan = {
        run: {
          ...base,
          workflowName: workflow.name,
          concurrencyGroup: concurrency?.group,
          calls: expanded.calls,
        },
        jobs,
        cancelGroup: concurrency?.cancelInProgress === true,
      };
    } catch (error) {
      // Parsing and planning read nothing but workflow files: what they throw is a problem of the
      // file itself or of one it calls, shown on the run.
      if (!(error instanceof Error)) throw error;
      const { run } = await runs.create({ ...base, error: `${file.path}: ${error.message}` }, []);
      return run;
    }
    const scopes = versionScopesOfRepo({ id: repo.id, ownerId: repo.owner.id });
    const group = plan.run.concurrencyGroup;
    // Without cancel-in-progress the run already queued in the group is replaced first, so that
    // cancelling superseded runs below cannot release it; the new run then queues behind the
    // run of its group still unfinished, if any.
    const queueInGroup = group !== undefined && !plan.cancelGroup;
    if (queueInGroup) await lifecycle.queueBehind(repo.id, group);
    await lifecycle.cancelSuperseded({
      repoId: repo.id,
      ref: base.ref,
      workflowFile: base.workflowFile,
      event: base.event,
      concurrencyGroup: plan.cancelGroup ? group : undefined,
    });
    const queued = queueInGroup && (await lifecycle.queueBehind(repo.id, group));
    const { run } = await runs.create(
      { ...plan.run, concurrencyQueued: queued },
      plan.jobs.map((job) => ({
        name: job.name,
        jobKey: job.jobKey,
        runsOn: job.runsOn,
        needs: job.needs,
        payload: job.payload,
        hasIf: job.hasIf,
        stepNames: job.stepNames,
        concurrency: job.concurrency,
        permissions: job.permissions,
        skipped: job.skipped,
      })),
      scopes,
    );
    versions.forget(scopes);
    // Jobs with a `concurrency` of their own start blocked: settling admits them to their group;
    // jobs that need only skipped ones are skipped by it too.
    if (plan.jobs.some((job) => job.concurrency !== undefined || job.skipped)) {
      await lifecycle.settleNow(run.id);
    }
    if (queued && group !== undefined) await lifecycle.recheckGroup(repo.id, group);
    return run;
  }
}
