/** The job's own values: its `env:` before the first step and its `outputs` after the last. */
import { interpolate } from './expressions.ts';
import type { JobView } from './job-view.ts';

/** The workflow's and job's `env:`, evaluated (the job's may use the workflow's). */
export function evaluateJobEnv(view: JobView): Record<string, string> {
  const evaluated: Record<string, string> = {};
  for (const level of [view.job.workflowEnv, view.job.env]) {
    const contexts = view.contexts(evaluated);
    for (const [key, value] of Object.entries(level)) {
      evaluated[key] = interpolate(value, contexts, view.status);
    }
  }
  return evaluated;
}

/** `jobs.<id>.outputs`, evaluated now; values that would reveal a secret are left out. */
export function jobOutputs(view: JobView): Record<string, string> {
  const outputs: Record<string, string> = {};
  for (const [key, expression] of Object.entries(view.job.outputs)) {
    try {
      const value = interpolate(expression, view.contexts(), view.status);
      if (view.masker.mask(value) !== value) {
        view.log(`::warning::output "${key}" is left out because it contains a secret`);
      } else {
        outputs[key] = value;
      }
    } catch (error) {
      view.log(`::warning::output "${key}": ${(error as Error).message}`);
    }
  }
  return outputs;
}
