import type { WorkflowFile } from '../../git/workflow-files.ts';
import { fileName } from './event-payloads.ts';
import { type ParsedWorkflow, WorkflowError } from './workflow/workflow-parse.ts';
import type { WorkflowParser } from './workflow/workflow-parser.ts';

/** A workflow file and what parsing it gave: the workflow, or the error that names its line. */
export type ParsedFile = {
  readonly file: WorkflowFile;
  /** The file's name as runs and schedules record it (`fileName`). */
  readonly name: string;
  readonly parsed: { readonly workflow: ParsedWorkflow } | { readonly error: Error };
};

/** Parses one workflow file, keeping a parse error as its outcome rather than throwing it. */
export async function parseFile(file: WorkflowFile, parser: WorkflowParser): Promise<ParsedFile> {
  const name = fileName(file);
  try {
    return { file, name, parsed: { workflow: await parser.parse(name, file.content) } };
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    return { file, name, parsed: { error } };
  }
}

/**
 * How long the workflow files of one event may take to parse in all. Each file has its own
 * deadline in the parser, but a push may carry any number of files: without a budget for the
 * whole event, a thousand slow files would hold the parser's few threads, which every push
 * shares, for as many deadlines.
 */
export const EVENT_PARSE_BUDGET_MS = 10_000;

/**
 * Each file parsed once for everything an event does with it (its schedules, its runs), one
 * after the other: the parser's threads are few and shared by every push. Once the event's
 * budget is spent the files left are not parsed; each gets an error saying so.
 */
export async function parseFiles(
  files: readonly WorkflowFile[],
  parser: WorkflowParser,
  budgetMs = EVENT_PARSE_BUDGET_MS,
): Promise<ParsedFile[]> {
  const parsed: ParsedFile[] = [];
  const until = performance.now() + budgetMs;
  for (const file of files) {
    if (performance.now() < until) parsed.push(await parseFile(file, parser));
    else parsed.push({ file, name: fileName(file), parsed: { error: overBudget(budgetMs) } });
  }
  return parsed;
}

function overBudget(budgetMs: number): WorkflowError {
  return new WorkflowError(
    `not parsed: this push's workflow files took longer than ${budgetMs / 1000} s to parse in all`,
  );
}
