import type { Document, YAMLMap } from 'yaml';
import { loadOnFirstUse } from '../../../lib/load-on-first-use.ts';
import {
  type Concurrency,
  type JobConcurrency,
  jobConcurrencyOf,
  readConcurrency,
  readJobConcurrency,
} from './concurrency.ts';
import { type ExpressionContexts, interpolate, interpolateValue } from './interpolate.ts';
import { keyLine } from './key-line.ts';
import { checkedMatrixSize, combinationLabel, expandMatrix, MatrixError } from './matrix.ts';
import { isRecord, readTriggers, type Triggers } from './triggers.ts';
import { WorkflowError } from './workflow-error.ts';

export { type Concurrency, concurrencyOf } from './concurrency.ts';
export { WorkflowError };

/** The YAML library, loaded with the first workflow parsed: a server without CI never needs it. */
const yaml = loadOnFirstUse<typeof import('yaml')>('yaml');

/** A workflow file, parsed and checked enough to decide triggers and plan jobs. */
export type ParsedWorkflow = {
  /** `name:`, else the file name. */
  readonly name: string;
  readonly triggers: Triggers;
  /** `concurrency:` of the workflow (see `Concurrency`). */
  readonly concurrency: Concurrency | undefined;
  /**
   * The file as written: `planJobs` writes each job's document from it. Only plain data is kept
   * (no YAML `Document`), so a parsed workflow crosses from the parsing thread as it is.
   */
  readonly content: string;
  readonly jobs: Readonly<Record<string, Record<string, unknown>>>;
  /** `permissions:` of the workflow as written (permissions.ts reads it). */
  readonly permissions?: unknown;
};

/**
 * Parses one workflow file. Throws `WorkflowError` naming the line for YAML errors and for a
 * shape no runner can use (no `on`, no jobs, a job without `runs-on` or steps).
 */
export function parseWorkflow(fileName: string, content: string): ParsedWorkflow {
  const document = yaml().parseDocument(content, { prettyErrors: true, uniqueKeys: true });
  const [error] = document.errors;
  if (error !== undefined)
    throw new WorkflowError(
      error.message.split('\n')[0] ?? 'invalid YAML',
      error.linePos?.[0].line,
    );
  const root: unknown = document.toJS({ maxAliasCount: 100 });
  if (!isRecord(root)) throw new WorkflowError('a workflow must be a mapping', 1);
  const lineOf = (key: string) => keyLine(document, content, ['jobs', key]);
  if (root.on === undefined) throw new WorkflowError('the workflow has no "on:" triggers', 1);
  if (!isRecord(root.jobs) || Object.keys(root.jobs).length === 0) {
    throw new WorkflowError('the workflow has no jobs', keyLine(document, content, ['jobs']) ?? 1);
  }
  const jobs: Record<string, Record<string, unknown>> = {};
  for (const [id, job] of Object.entries(root.jobs)) {
    if (!isRecord(job)) throw new WorkflowError(`job "${id}" must be a mapping`, lineOf(id));
    if (job['runs-on'] === undefined && job.uses === undefined) {
      throw new WorkflowError(`job "${id}" has no "runs-on"`, lineOf(id));
    }
    for (const need of needsOf(job)) {
      if (!(need in root.jobs))
        throw new WorkflowError(`job "${id}" needs unknown job "${need}"`, lineOf(id));
    }
    jobs[id] = job;
  }
  const concurrency = readConcurrency(root.concurrency);
  return {
    name: typeof root.name === 'string' && root.name !== '' ? root.name : fileName,
    triggers: readTriggers(root.on),
    concurrency,
    content,
    jobs,
    permissions: root.permissions,
  };
}

/** The job ids a job waits for. */
export function needsOf(job: Record<string, unknown>): string[] {
  if (typeof job.needs === 'string') return [job.needs];
  if (Array.isArray(job.needs)) return job.needs.map(String);
  return [];
}

/** One job of a run: a workflow job, or one combination of its matrix. */
export type PlannedJob = {
  readonly jobId: string;
  /** Display name: `name:` interpolated, else the id, plus ` (v1, v2)` for a matrix combination. */
  readonly name: string;
  readonly runsOn: readonly string[];
  readonly needs: readonly string[];
  /** The job has an `if:`: it is handed out even when a job it needs failed (the runner decides). */
  readonly hasIf: boolean;
  readonly stepNames: readonly string[];
  /** The single-job workflow document handed to the runner. */
  readonly payload: string;
  /** `jobs.<id>.concurrency` evaluated with the job's contexts; undefined without one. */
  readonly concurrency: JobConcurrency | undefined;
};

/**
 * Splits a workflow into one single-job document per job and matrix combination, interpolating
 * `runs-on`, `name` and the matrix values with `contexts` (`github`, `vars`, `inputs`) and the
 * combination's `matrix`. Each document keeps everything but the other jobs; `needs` is removed
 * (the runner rebuilds it from the task's `needs`) and the matrix is narrowed to the one combination.
 */
export function planJobs(workflow: ParsedWorkflow, contexts: ExpressionContexts): PlannedJob[] {
  const planned: PlannedJob[] = [];
  const matrices = new Map<string, unknown>();
  let total = 0;
  // Every matrix is counted before any is expanded, so a run over the cap costs its count only.
  for (const [jobId, job] of Object.entries(workflow.jobs)) {
    const strategy = isRecord(job.strategy) ? job.strategy : {};
    const matrix = matrixError(jobId, () => interpolateValue(strategy.matrix, contexts));
    total += matrixError(jobId, () => checkedMatrixSize(matrix));
    matrices.set(jobId, matrix);
  }
  if (total > MAX_JOBS_PER_RUN) {
    throw new WorkflowError(
      `the workflow makes ${total} jobs, more than the ${MAX_JOBS_PER_RUN} a run may have`,
    );
  }
  // Parsed again rather than kept from `parseWorkflow`: a YAML `Document` cannot cross threads.
  const document = yaml().parseDocument(workflow.content, { uniqueKeys: true });
  for (const [jobId, job] of Object.entries(workflow.jobs)) {
    const concurrency = readJobConcurrency(jobId, job.concurrency);
    const combinations = matrixError(jobId, () => expandMatrix(matrices.get(jobId)));
    const template = jobTemplate(document, jobId);
    for (const combination of combinations) {
      const scope = { ...contexts, matrix: combination };
      const label = combinationLabel(combination);
      const name =
        typeof job.name === 'string'
          ? interpolate(job.name, scope)
          : label === ''
            ? jobId
            : `${jobId} ${label}`;
      const runsOn = labelsOf(interpolateValue(job['runs-on'], scope));
      planned.push({
        jobId,
        name,
        runsOn,
        needs: needsOf(job),
        hasIf: job.if !== undefined,
        stepNames: stepNames(job.steps),
        concurrency: jobConcurrencyOf(jobId, concurrency, scope),
        payload: singleJobDocument(template, jobId, {
          name,
          runsOn,
          matrix: Object.keys(combination).length === 0 ? undefined : combination,
        }),
      });
    }
  }
  return planned;
}

/** Jobs one run may have, all matrices together (a matrix alone may make 256, as on GitHub). */
export const MAX_JOBS_PER_RUN = 256;

/** What `read` answers, a matrix problem named for the job as a `WorkflowError`. */
function matrixError<T>(jobId: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    const message = error instanceof MatrixError ? error.message : String(error);
    throw new WorkflowError(`job "${jobId}": ${message}`);
  }
}

function labelsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.map(String);
  if (isRecord(value) && value.labels !== undefined) return labelsOf(value.labels);
  return [];
}

function stepNames(steps: unknown): string[] {
  if (!Array.isArray(steps)) return [];
  return steps.map((step, at) => {
    if (!isRecord(step)) return `step ${at + 1}`;
    if (typeof step.name === 'string') return step.name;
    if (typeof step.uses === 'string') return step.uses;
    if (typeof step.run === 'string') return step.run.split('\n')[0] ?? '';
    return `step ${at + 1}`;
  });
}

/**
 * The workflow with only `jobId` left, without its `needs`: what each of its single-job documents
 * is written from. Made once per job and changed in place for each combination (its name,
 * `runs-on` and matrix are set anew every time), so a matrix's combinations neither copy the
 * whole file nor copy this: copying YAML nodes was most of what planning a matrix cost.
 */
function jobTemplate(source: Document, jobId: string): JobTemplate {
  const document = source.clone();
  const jobs = document.get('jobs');
  if (yaml().isMap(jobs)) {
    for (const pair of [...jobs.items]) {
      if (String((pair.key as { value?: unknown })?.value ?? pair.key) !== jobId)
        jobs.delete(pair.key);
    }
  }
  const job = document.getIn(['jobs', jobId]);
  if (!(job instanceof yaml().YAMLMap)) return { document, job: undefined, matrix: undefined };
  job.delete('needs');
  return { document, job, matrix: document.getIn(['jobs', jobId, 'strategy', 'matrix'], true) };
}

type JobTemplate = {
  readonly document: Document;
  readonly job: YAMLMap | undefined;
  /** The job's own `strategy.matrix` node, put back for a job whose combination is empty. */
  readonly matrix: unknown;
};

function singleJobDocument(
  { document, job, matrix }: JobTemplate,
  jobId: string,
  facts: { name: string; runsOn: readonly string[]; matrix: Record<string, unknown> | undefined },
): string {
  if (job !== undefined) {
    job.set('name', facts.name);
    job.set('runs-on', facts.runsOn.length === 1 ? facts.runsOn[0] : [...facts.runsOn]);
    if (facts.matrix !== undefined) {
      const one = Object.fromEntries(Object.entries(facts.matrix).map(([k, v]) => [k, [v]]));
      document.setIn(['jobs', jobId, 'strategy', 'matrix'], document.createNode(one));
    } else if (matrix !== undefined) {
      document.setIn(['jobs', jobId, 'strategy', 'matrix'], matrix);
    }
  }
  return document.toString();
}
