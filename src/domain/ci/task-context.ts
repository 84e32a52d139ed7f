import type { CiTask, WorkflowRun } from './ci.types.ts';

/**
 * Where the instance serves its actions source, below its base URL: what a host-less
 * `uses: owner/repo@ref` resolves to while `service.ci.actions-url` is unset. It serves only the
 * action owners' repositories (http/git/actions-source.routes.ts); no handle starts with `-`,
 * so no account's pages or repositories can sit there.
 */
export const ACTIONS_SOURCE_PATH = '/-/actions';

export type TaskContextInput = {
  readonly run: WorkflowRun;
  readonly task: CiTask;
  readonly owner: string;
  readonly repoName: string;
  readonly token: string;
  /** The instance's external base URL, without a trailing slash. */
  readonly baseUrl: string;
  readonly actionsUrl: string;
  readonly retentionDays: number;
  /** `ACTIONS_RUNTIME_TOKEN` (runtime-token.ts); runners fall back to the task token. */
  readonly runtimeToken?: string;
};

/**
 * The `github`/`gitea` context of a task (`Task.context`), with every key the runners read.
 * `gitea_default_actions_url` and `forgejo_default_actions_url` must be present: the Forgejo
 * runner fails the task without one of them. Numbers travel as decimal strings, as in Gitea.
 */
export function taskContext(input: TaskContextInput): Record<string, unknown> {
  const { run, task, baseUrl } = input;
  const ref = run.ref;
  const isTag = ref.startsWith('refs/tags/');
  const repository = `${input.owner}/${input.repoName}`;
  return {
    action: '',
    action_path: '',
    action_ref: '',
    action_repository: '',
    action_status: '',
    actor: run.actor,
    triggering_actor: run.actor,
    api_url: `${baseUrl}/api/v1`,
    base_ref: run.baseRef,
    head_ref: run.headRef,
    env: '',
    event: run.eventPayload,
    event_name: run.event,
    event_path: '',
    graphql_url: '',
    job: task.jobKey,
    ref,
    ref_name: ref.replace(/^refs\/(heads|tags|pull)\//, ''),
    ref_protected: false,
    ref_type: isTag ? 'tag' : 'branch',
    path: '',
    repository,
    repository_owner: input.owner,
    repositoryUrl: `${baseUrl}/${repository}`,
    retention_days: String(input.retentionDays),
    // The run number is the run's id on the wire too (REST addresses runs by it, per repository).
    run_id: String(run.number),
    run_number: String(run.number),
    run_attempt: String(Math.max(1, task.attempt)),
    secret_source: 'Actions',
    server_url: baseUrl,
    sha: run.sha,
    token: input.token,
    workflow: run.workflowFile,
    workflow_ref: `${repository}/.gitea/workflows/${run.workflowFile}@${ref}`,
    workspace: '',
    gitea_runtime_token: input.runtimeToken ?? '',
    forgejo_runtime_token: input.runtimeToken ?? '',
    gitea_default_actions_url: input.actionsUrl,
    forgejo_default_actions_url: input.actionsUrl,
  };
}
