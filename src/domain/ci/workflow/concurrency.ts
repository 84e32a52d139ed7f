import { errorMessage } from '../../../lib/thrown.ts';
import { type ExpressionContexts, interpolate, interpolateValue } from './interpolate.ts';
import { isRecord } from './triggers.ts';
import { WorkflowError } from './workflow-error.ts';

/** An evaluated `concurrency:`: the group's name and whether `cancel-in-progress` holds. */
export type JobConcurrency = { readonly group: string; readonly cancelInProgress: boolean };

/**
 * `concurrency:` as written: the group (text that may hold `${{ … }}`) and `cancel-in-progress`,
 * a boolean or an expression evaluated with the group's contexts (`concurrencyOf`).
 */
export type Concurrency = {
  readonly group: string;
  readonly cancelInProgress: boolean | string;
};

/** `concurrency:` of a workflow or a job: a group name alone, or `{group, cancel-in-progress}`. */
export function readConcurrency(value: unknown): Concurrency | undefined {
  if (typeof value === 'string') return { group: value, cancelInProgress: false };
  if (isRecord(value) && typeof value.group === 'string') {
    const cancel = value['cancel-in-progress'];
    return {
      group: value.group,
      cancelInProgress: typeof cancel === 'string' || cancel === true ? cancel : false,
    };
  }
  return undefined;
}

/**
 * A `concurrency:` evaluated on the server with the contexts a run starts with (`github`,
 * `inputs`, `vars`): the group's name, and whether `cancel-in-progress` holds (an expression
 * must come out `true`; anything else, an unknown context included, does not cancel). Group
 * names are case-insensitive, as on GitHub (`Deploy` and `deploy` are one group), so the name
 * is kept in lower case.
 */
export function concurrencyOf(
  concurrency: Concurrency,
  contexts: ExpressionContexts,
): JobConcurrency {
  const cancel = concurrency.cancelInProgress;
  const value = typeof cancel === 'string' ? interpolateValue(cancel, contexts) : cancel;
  return {
    group: interpolate(concurrency.group, contexts).toLowerCase(),
    cancelInProgress: value === true || value === 'true',
  };
}

/**
 * `jobs.<id>.concurrency` as written. Unlike the workflow's, a value that is not a group name or
 * a `{group, cancel-in-progress}` mapping is an error of the file, so that a typo never silently
 * lets two deployments run at once.
 */
export function readJobConcurrency(jobId: string, value: unknown): Concurrency | undefined {
  if (value === undefined || value === null) return undefined;
  const read = readConcurrency(value);
  const cancel = isRecord(value) ? value['cancel-in-progress'] : undefined;
  const unknownKey = isRecord(value)
    ? Object.keys(value).find((key) => key !== 'group' && key !== 'cancel-in-progress')
    : undefined;
  if (read === undefined || unknownKey !== undefined) {
    const why = unknownKey === undefined ? 'needs a "group"' : `has unknown key "${unknownKey}"`;
    throw new WorkflowError(`job "${jobId}": "concurrency" ${why}`);
  }
  if (cancel !== undefined && typeof cancel !== 'boolean' && typeof cancel !== 'string') {
    throw new WorkflowError(
      `job "${jobId}": "cancel-in-progress" must be a boolean or an expression`,
    );
  }
  return read;
}

/** Evaluates a job's `concurrency` for one matrix combination; an empty group means none. */
export function jobConcurrencyOf(
  jobId: string,
  concurrency: Concurrency | undefined,
  scope: ExpressionContexts,
): JobConcurrency | undefined {
  if (concurrency === undefined) return undefined;
  let evaluated: JobConcurrency;
  try {
    evaluated = concurrencyOf(concurrency, scope);
  } catch (error) {
    throw new WorkflowError(`job "${jobId}": concurrency: ${errorMessage(error)}`);
  }
  // What is left unevaluated reads a context the server does not have (`needs`, `secrets`):
  // the group would differ from run to run in ways nobody meant.
  if (evaluated.group.includes('${{')) {
    throw new WorkflowError(
      `job "${jobId}": a concurrency group may only use github, inputs, matrix and vars`,
    );
  }
  return evaluated.group === '' ? undefined : evaluated;
}
