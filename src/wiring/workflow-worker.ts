/**
 * The workflow worker: the thread where pushed workflow files are parsed and planned (see
 * workflow-parser-pool.ts for the rule). It loads the YAML library before it says it is ready,
 * so the pool's time budget never pays for module loading, then answers one job at a time.
 */
import { parentPort } from 'node:worker_threads';
import { WorkflowError } from '../domain/ci/workflow/workflow-error.ts';
import { parseWorkflow, planJobs } from '../domain/ci/workflow/workflow-parse.ts';
import { yieldToRequestThread } from '../lib/thread-priority.ts';
import type { WorkflowAnswer, WorkflowJob } from './workflow-parser-pool.ts';

function answer(job: WorkflowJob): WorkflowAnswer {
  try {
    if (job.kind === 'parse') return { workflow: parseWorkflow(job.fileName, job.content) };
    return { planned: planJobs(job.workflow, job.contexts) };
  } catch (error) {
    if (error instanceof WorkflowError) {
      const prefix = error.line === undefined ? '' : `line ${error.line}: `;
      return { error: error.message.slice(prefix.length), line: error.line, workflowError: true };
    }
    return { error: error instanceof Error ? error.message : String(error), workflowError: false };
  }
}

const port = parentPort;
if (port) {
  yieldToRequestThread();
  await import('yaml');
  port.on('message', (job: WorkflowJob) => {
    port.postMessage({ ok: true, output: answer(job) });
  });
  port.postMessage({ ready: true });
}
