import { z } from 'zod';
import type { RunAnnotation } from '../domain/ci/run-query.service.ts';
import { toApiWorkflowJob, toApiWorkflowRun } from '../present/action.ts';
import { addListTool, addTool, recordResult, repoArgs, type ToolKit } from './tool-kit.ts';

/** The most rows `get_job_log_tail` reads, the bytes it reads, and a line's characters. */
export const LOG_TAIL_LIMITS = { rows: 1000, bytes: 256 * 1024, lineChars: 2000 } as const;

const idArg = (what: string) => z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).describe(what);
const runArg = idArg('The run number within the repository (the `id` of a workflow run record)');
const jobArg = idArg('The job id (the `id` of a job record, as `get_workflow_run` lists them)');

/**
 * A REST record with its URL fields null: the tools have no request to take a base URL from
 * (SPEC.md), and a relative URL would look like an address that works.
 */
function withoutUrls<Shape extends object>(record: Shape): Shape {
  const entries = Object.entries(record).map(([key, value]) => [
    key,
    key === 'url' || key.endsWith('_url') ? null : value,
  ]);
  return Object.fromEntries(entries) as Shape;
}

/** An annotation in the shape of GitHub's check-run annotations, with its job's id and name. */
function annotationRecord(annotation: RunAnnotation) {
  return {
    job_id: annotation.taskId,
    job_name: annotation.jobName,
    annotation_level: annotation.level === 'error' ? 'failure' : annotation.level,
    title: annotation.title,
    message: annotation.message,
    path: annotation.file,
    start_line: annotation.line,
    end_line: annotation.endLine ?? annotation.line,
    start_column: annotation.col,
    end_column: annotation.endCol,
  };
}

/** A stored log row is `<RFC 3339 time> <content>`; the tail gives the content. */
function lineOf(row: string): string {
  const space = row.indexOf(' ');
  const content = space === -1 ? row : row.slice(space + 1);
  return content.length > LOG_TAIL_LIMITS.lineChars
    ? `${content.slice(0, LOG_TAIL_LIMITS.lineChars)}… (line cut)`
    : content;
}

/**
 * `list_workflow_runs`, `get_workflow_run`, `get_job_log_tail`, `rerun_workflow_run` and
 * `cancel_workflow_run`: what an agent needs to see why CI failed and to start it again, with
 * the permission checks of the REST routes they mirror (reading for readers, re-running and
 * cancelling for writers).
 */
export function registerRunTools(
  kit: ToolKit<'ciRunQueries' | 'ciRunReruns' | 'ciRunCancels'>,
): void {
  const { ciRunQueries: queries, ciRunReruns: reruns, ciRunCancels: cancels } = kit.services;
  const runRecord = async (
    user: Parameters<typeof queries.listJobs>[0],
    owner: string,
    repo: string,
    number: number,
  ) => {
    const { repo: found, run, jobs } = await queries.listJobs(user, owner, repo, number);
    const annotations = await queries.runAnnotations(run);
    return recordResult({
      ...withoutUrls(toApiWorkflowRun(run, found, '')),
      jobs: jobs.map((job) => withoutUrls(toApiWorkflowJob(job, run, found, ''))),
      annotations: annotations.map(annotationRecord),
    });
  };

  addListTool(
    kit,
    'list_workflow_runs',
    {
      title: 'List workflow runs',
      description:
        "A repository's CI runs, newest first, as Gitea ActionWorkflowRun records: `id` (the " +
        'run number), `display_title`, `event`, `head_branch`, `head_sha`, `status` ' +
        '(`queued`, `in_progress`, `completed`…), `conclusion` (`success`, `failure`, ' +
        '`cancelled`…), `run_attempt`. Paginated: `page`, `limit` (at most 50).',
      args: repoArgs,
    },
    async ({ owner, repo }, paging, user) => {
      const listed = await queries.listRuns(user, owner, repo, paging);
      return {
        items: listed.runs.map((run) => withoutUrls(toApiWorkflowRun(run, listed.repo, ''))),
        total: listed.total,
      };
    },
  );

  addTool(
    kit,
    'get_workflow_run',
    {
      title: 'Get a workflow run with its jobs',
      description:
        'One run as a Gitea ActionWorkflowRun record, with `jobs`: each job with its `id` ' +
        '(for `get_job_log_tail`), `name`, `status`, `conclusion`, `run_attempt` and `steps` ' +
        "(`name`, `number`, `status`, `conclusion`); and `annotations`, what the jobs' logs " +
        'flagged with `::error`/`::warning`/`::notice` (`job_name`, `annotation_level`, ' +
        '`title`, `message`, `path`, `start_line`, `end_line`).',
      input: z.strictObject({ ...repoArgs, run: runArg }),
      effect: 'read',
    },
    async ({ owner, repo, run }, user) => runRecord(user, owner, repo, run),
  );

  addTool(
    kit,
    'get_job_log_tail',
    {
      title: "Read the end of a job's log",
      description:
        `The last \`lines\` lines of a job's log (default 100, at most ${LOG_TAIL_LIMITS.rows}, ` +
        `and at most ${LOG_TAIL_LIMITS.bytes / 1024} KiB; a line longer than ` +
        `${LOG_TAIL_LIMITS.lineChars} characters is cut). Returns \`lines\`, \`first_line\` ` +
        '(1-based number of the first line given) and `total_lines`.',
      input: z.strictObject({
        ...repoArgs,
        job: jobArg,
        lines: z
          .number()
          .int()
          .min(1)
          .optional()
          .describe(`How many lines from the end; default 100, at most ${LOG_TAIL_LIMITS.rows}`),
      }),
      effect: 'read',
    },
    async ({ owner, repo, job, lines }, user) => {
      const rows = Math.min(lines ?? 100, LOG_TAIL_LIMITS.rows);
      const tail = await queries.jobLogWindow(
        user,
        owner,
        repo,
        job,
        {},
        { maxRows: rows, maxBytes: LOG_TAIL_LIMITS.bytes },
      );
      const stored = await tail.readRows();
      return recordResult({
        job_id: job,
        first_line: stored.length === 0 ? null : tail.from + 1,
        total_lines: tail.total,
        lines: stored.map(lineOf),
      });
    },
  );

  addTool(
    kit,
    'rerun_workflow_run',
    {
      title: 'Re-run a finished workflow run',
      description:
        'Starts a finished run over as its next attempt (needs write access): every job, or ' +
        'with `failed_only` the jobs that failed or were cancelled and the jobs that need ' +
        'them. Returns the run with its jobs. A run still going is a conflict: cancel it first.',
      input: z.strictObject({
        ...repoArgs,
        run: runArg,
        failed_only: z.boolean().optional().describe('Only the failed jobs; default false'),
      }),
      effect: 'change',
    },
    async ({ owner, repo, run, failed_only }, user) => {
      await reruns.rerun(user, owner, repo, run, { kind: failed_only ? 'failed' : 'run' });
      return runRecord(user, owner, repo, run);
    },
  );

  addTool(
    kit,
    'cancel_workflow_run',
    {
      title: 'Cancel a workflow run',
      description:
        'Cancels every unfinished job of a run (needs write access); a running job stops at ' +
        "its runner's next report. Returns the run with its jobs. A finished run is a conflict.",
      input: z.strictObject({ ...repoArgs, run: runArg }),
      effect: 'change',
    },
    async ({ owner, repo, run }, user) => {
      await cancels.cancelUnfinished(user, owner, repo, run);
      return runRecord(user, owner, repo, run);
    },
  );
}
