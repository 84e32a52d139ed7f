/**
 * The single-job workflow document a task carries (`Task.workflow_payload`), read into the parts
 * the runner acts on. Unknown keys are ignored; the server has already expanded the matrix.
 */
import { parse } from 'yaml';
import { errorMessage } from '../thrown.ts';

/** `defaults.run` at workflow or job level. */
export type RunDefaults = { readonly shell?: string; readonly workingDirectory?: string };

/** One entry of `steps:`. Values are kept as written; expressions are evaluated when it runs. */
export type StepSpec = {
  readonly id?: string;
  readonly name?: string;
  readonly if?: string | boolean;
  readonly run?: string;
  readonly uses?: string;
  readonly shell?: string;
  readonly with: Record<string, string>;
  readonly env: Record<string, string>;
  readonly workingDirectory?: string;
  readonly continueOnError: string | boolean;
  readonly timeoutMinutes?: string | number;
};

/** The one job of the document, with what the workflow level adds to it. */
export type JobSpec = {
  readonly id: string;
  readonly name?: string;
  readonly if?: string | boolean;
  readonly workflowEnv: Record<string, string>;
  readonly env: Record<string, string>;
  readonly defaults: RunDefaults;
  readonly steps: readonly StepSpec[];
  readonly outputs: Record<string, string>;
  readonly timeoutMinutes?: string | number;
  readonly continueOnError: string | boolean;
  readonly matrix: Record<string, unknown>;
  /** `container:` or `services:`, which a host runner cannot honour. */
  readonly wantsContainers: boolean;
};

/** The payload is not a workflow with exactly one job. */
export class WorkflowError extends Error {}

type Loose = Record<string, unknown>;

function object(value: unknown): Loose {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Loose)
    : {};
}

function optionalString(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : String(value);
}

/**
 * A YAML value as the text a step sees, as GitHub's runner has it: `null` (or nothing) is empty,
 * booleans and numbers are written out (`true`, `1`), mappings and lists as JSON.
 */
export function scalarText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, entry] of Object.entries(object(value))) out[key] = scalarText(entry);
  return out;
}

function condition(value: unknown): string | boolean | undefined {
  return typeof value === 'boolean' ? value : optionalString(value);
}

function flag(value: unknown): string | boolean {
  return typeof value === 'boolean' || typeof value === 'string' ? value : false;
}

function minutes(value: unknown): string | number | undefined {
  return typeof value === 'number' || typeof value === 'string' ? value : undefined;
}

function runDefaults(...levels: unknown[]): RunDefaults {
  let shell: string | undefined;
  let workingDirectory: string | undefined;
  for (const level of levels) {
    const run = object(object(level).run);
    shell = optionalString(run.shell) ?? shell;
    workingDirectory = optionalString(run['working-directory']) ?? workingDirectory;
  }
  return {
    ...(shell !== undefined ? { shell } : {}),
    ...(workingDirectory !== undefined ? { workingDirectory } : {}),
  };
}

function step(raw: unknown, index: number): StepSpec {
  const s = object(raw);
  if (s.run === undefined && s.uses === undefined) {
    throw new WorkflowError(`step ${index + 1} has neither "run" nor "uses"`);
  }
  const optional = {
    id: optionalString(s.id),
    name: optionalString(s.name),
    if: condition(s.if),
    run: optionalString(s.run),
    uses: optionalString(s.uses),
    shell: optionalString(s.shell),
    workingDirectory: optionalString(s['working-directory']),
    timeoutMinutes: minutes(s['timeout-minutes']),
  };
  return {
    ...(Object.fromEntries(
      Object.entries(optional).filter(([, v]) => v !== undefined),
    ) as Partial<StepSpec>),
    with: stringMap(s.with),
    env: stringMap(s.env),
    continueOnError: flag(s['continue-on-error']),
  };
}

/** The matrix values of this job: the server leaves one value per key. */
function matrixOf(strategy: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object(object(strategy).matrix))) {
    out[key] = Array.isArray(value) ? value[0] : value;
  }
  return out;
}

/** Reads the payload; throws WorkflowError when it is not one job of steps. */
export function parseWorkflow(payload: string): JobSpec {
  let doc: Loose;
  try {
    doc = object(parse(payload));
  } catch (error) {
    throw new WorkflowError(`workflow is not valid YAML: ${errorMessage(error)}`);
  }
  const jobs = Object.entries(object(doc.jobs));
  if (jobs.length !== 1) throw new WorkflowError(`expected one job, found ${jobs.length}`);
  const [id, rawJob] = jobs[0] as [string, unknown];
  const job = object(rawJob);
  const steps = Array.isArray(job.steps) ? job.steps : [];
  const optional = {
    name: optionalString(job.name),
    if: condition(job.if),
    timeoutMinutes: minutes(job['timeout-minutes']),
  };
  return {
    ...(Object.fromEntries(
      Object.entries(optional).filter(([, v]) => v !== undefined),
    ) as Partial<JobSpec>),
    id,
    workflowEnv: stringMap(doc.env),
    env: stringMap(job.env),
    defaults: runDefaults(doc.defaults, job.defaults),
    steps: steps.map(step),
    outputs: stringMap(job.outputs),
    continueOnError: flag(job['continue-on-error']),
    matrix: matrixOf(job.strategy),
    wantsContainers: job.container !== undefined || job.services !== undefined,
  };
}
