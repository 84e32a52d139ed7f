/**
 * `uses:` steps. Not run by this runner yet: the step fails with a message saying so.
 */

import type { StepRun } from './step.ts';
import type { StepExecution } from './step-exec.ts';

/** Runs the action a step names. */
export async function runAction(run: StepRun): Promise<StepExecution> {
  throw new Error(`actions are not supported by this runner yet: "${run.spec.uses}"`);
}
