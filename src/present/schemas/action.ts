import type { Static } from 'typebox';
import { Type } from './type.ts';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) =>
  Type.Union([schema, Type.Null()]);

/** Gitea 1.24's `ActionWorkflowRun` (GitHub's workflow run, the fields Gitea serves). */
export const ApiActionWorkflowRunSchema = Type.Object({
  id: Type.Integer(),
  url: Type.String(),
  html_url: Type.String(),
  display_title: Type.String(),
  path: Type.String(),
  event: Type.String(),
  run_attempt: Type.Integer(),
  run_number: Type.Integer(),
  run_started_at: Nullable(Type.String()),
  head_branch: Type.String(),
  head_sha: Type.String(),
  status: Type.String(),
  conclusion: Nullable(Type.String()),
  repository_id: Type.Integer(),
  created_at: Type.String(),
  updated_at: Type.String(),
  completed_at: Nullable(Type.String()),
  /** Why the run could not start (Kiln: a workflow that does not parse). */
  error: Nullable(Type.String()),
});
export type ApiActionWorkflowRun = Static<typeof ApiActionWorkflowRunSchema>;

export const ApiActionWorkflowStepSchema = Type.Object({
  name: Type.String(),
  number: Type.Integer(),
  status: Type.String(),
  conclusion: Nullable(Type.String()),
  started_at: Nullable(Type.String()),
  completed_at: Nullable(Type.String()),
});

/** Gitea 1.24's `ActionWorkflowJob`. */
export const ApiActionWorkflowJobSchema = Type.Object({
  id: Type.Integer(),
  url: Type.String(),
  html_url: Type.String(),
  run_id: Type.Integer(),
  run_url: Type.String(),
  name: Type.String(),
  labels: Type.Array(Type.String()),
  run_attempt: Type.Integer(),
  head_sha: Type.String(),
  head_branch: Type.String(),
  status: Type.String(),
  conclusion: Nullable(Type.String()),
  runner_name: Type.String(),
  steps: Type.Array(ApiActionWorkflowStepSchema),
  created_at: Type.String(),
  started_at: Nullable(Type.String()),
  completed_at: Nullable(Type.String()),
});
export type ApiActionWorkflowJob = Static<typeof ApiActionWorkflowJobSchema>;

export const ApiActionWorkflowRunsResponseSchema = Type.Object({
  workflow_runs: Type.Array(ApiActionWorkflowRunSchema),
  total_count: Type.Integer(),
});

export const ApiActionWorkflowJobsResponseSchema = Type.Object({
  jobs: Type.Array(ApiActionWorkflowJobSchema),
  total_count: Type.Integer(),
});
