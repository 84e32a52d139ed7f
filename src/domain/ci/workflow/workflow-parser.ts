import type { ExpressionContexts } from './interpolate.ts';
import { type ParsedWorkflow, type PlannedJob, parseWorkflow, planJobs } from './workflow-parse.ts';

/**
 * Where workflow files are parsed and planned. Both cost time in proportion to the file (and
 * planning, to the file times its matrix), so the server's parser runs them off the request
 * thread (src/wiring/workflow-parser-pool.ts); the domain only ever waits for the answer.
 * Either method rejects with a `WorkflowError` (or another `Error`) that names what is wrong,
 * exactly as `parseWorkflow` and `planJobs` throw.
 */
export type WorkflowParser = {
  /** `parseWorkflow` of one file. */
  parse(fileName: string, content: string): Promise<ParsedWorkflow>;
  /** `planJobs` of a parsed workflow (or of some of its jobs). */
  plan(workflow: ParsedWorkflow, contexts: ExpressionContexts): Promise<PlannedJob[]>;
};

/**
 * The parser that runs on the calling thread: for tests and tools only. The server never uses
 * it, as nothing a user pushes may be parsed on the request thread.
 */
export const inProcessWorkflowParser: WorkflowParser = {
  parse: async (fileName, content) => parseWorkflow(fileName, content),
  plan: async (workflow, contexts) => planJobs(workflow, contexts),
};
