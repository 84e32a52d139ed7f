import type { ExpressionContexts } from '../domain/ci/workflow/interpolate.ts';
import { WorkflowError } from '../domain/ci/workflow/workflow-error.ts';
import type { ParsedWorkflow, PlannedJob } from '../domain/ci/workflow/workflow-parse.ts';
import type { WorkflowParser } from '../domain/ci/workflow/workflow-parser.ts';
import { PoolFull, type PoolOutcome, WorkerPool } from '../lib/worker-pool.ts';

/** What the workflow worker is asked: parse a file, or plan a workflow it parsed. */
export type WorkflowJob =
  | { readonly kind: 'parse'; readonly fileName: string; readonly content: string }
  | {
      readonly kind: 'plan';
      readonly workflow: ParsedWorkflow;
      readonly contexts: ExpressionContexts;
    };

/** What it answers: plain data only, as crosses threads (a thrown error is sent as its message). */
export type WorkflowAnswer =
  | { readonly workflow: ParsedWorkflow }
  | { readonly planned: PlannedJob[] }
  | { readonly error: string; readonly line?: number; readonly workflowError: boolean };

export type WorkflowParserPoolOptions = {
  /** Threads parsing at once (started on demand, none at idle). */
  readonly workers?: number;
  /** Longest one parse or plan may take before it is abandoned. */
  readonly timeoutMs?: number;
};

/** Threads that parse workflow files: a small fixed number, whatever the pushes. */
const WORKERS = 2;

/** Longest one file may take to parse, or a run to plan (a large workflow takes tens of ms). */
const TIMEOUT_MS = 2000;

/** Parses and plans waiting for a thread; past it an event's workflows fail, to be pushed again. */
const QUEUE_LIMIT = 256;

/** Heap of one worker: a file that needs more (aliases expanded) fails alone. */
const MAX_HEAP_MB = 256;

/** A worker idle this long is stopped: a server that is not pushed to holds no thread. */
const IDLE_MS = 30_000;

/**
 * The server's `WorkflowParser`: every parse and plan of a workflow file on a worker thread.
 *
 * INVARIANT: no workflow file a user pushes, dispatches, schedules or calls is parsed (or
 * planned: that costs per byte of the file too) on the request thread. It runs on one of a few
 * workers, for at most `timeoutMs`; a parse past it is abandoned — its worker is terminated
 * and replaced — and the run records a workflow error saying so, instead of hanging. Only plain
 * data crosses back (the YAML `Document` stays in the worker), and the YAML library is loaded
 * by the worker alone, started with the first file parsed.
 */
export function workflowParserPool(
  options: WorkflowParserPoolOptions = {},
): WorkflowParser & { close(): Promise<void> } {
  const timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
  const pool = new WorkerPool<WorkflowJob, WorkflowAnswer>({
    file: new URL('./workflow-worker.ts', import.meta.url),
    size: options.workers ?? WORKERS,
    timeoutMs,
    queueLimit: QUEUE_LIMIT,
    maxHeapMb: MAX_HEAP_MB,
    idleMs: IDLE_MS,
  });
  const run = async (job: WorkflowJob): Promise<WorkflowAnswer> => {
    let outcome: PoolOutcome<WorkflowAnswer>;
    try {
      outcome = await pool.run(job);
    } catch (error) {
      if (error instanceof PoolFull)
        throw new WorkflowError('the server is parsing too many workflows; push again later');
      throw error;
    }
    if (outcome.kind === 'done') return outcome.output;
    throw new WorkflowError(
      outcome.kind === 'timeout'
        ? `the workflow took longer than ${timeoutMs / 1000} s to ${job.kind} and was abandoned`
        : outcome.kind === 'failed'
          ? `the workflow could not be ${job.kind === 'parse' ? 'parsed' : 'planned'}: ${outcome.reason}`
          : 'the server is stopping',
    );
  };
  return {
    close: () => pool.close(),
    async parse(fileName, content) {
      const answer = await run({ kind: 'parse', fileName, content });
      if ('workflow' in answer) return answer.workflow;
      throw revive(answer);
    },
    async plan(workflow, contexts) {
      const answer = await run({ kind: 'plan', workflow, contexts });
      if ('planned' in answer) return answer.planned;
      throw revive(answer);
    },
  };
}

/** The error the worker caught, as the caller would have caught it on its own thread. */
function revive(answer: WorkflowAnswer): Error {
  if (!('error' in answer)) return new WorkflowError('the workflow worker answered nothing');
  return answer.workflowError
    ? new WorkflowError(answer.error, answer.line)
    : new Error(answer.error);
}
