import type { WorkflowFile } from '../../git/workflow-files.ts';
import { fileName } from './event-payloads.ts';
import { type ParsedWorkflow, parseWorkflow } from './workflow/workflow-parse.ts';

/** A workflow file and what parsing it gave: the workflow, or the error that names its line. */
export type ParsedFile = {
  readonly file: WorkflowFile;
  /** The file's name as runs and schedules record it (`fileName`). */
  readonly name: string;
  readonly parsed: { readonly workflow: ParsedWorkflow } | { readonly error: Error };
};

/** Parses one workflow file, keeping a parse error as its outcome rather than throwing it. */
export function parseFile(file: WorkflowFile): ParsedFile {
  const name = fileName(file);
  try {
    return { file, name, parsed: { workflow: parseWorkflow(name, file.content) } };
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    return { file, name, parsed: { error } };
  }
}

/**
 * Each file parsed once for everything an event does with it (its schedules, its runs), one file
 * a turn of the event loop. YAML is parsed on the request thread at about 10 µs a value, so a
 * push reparsing a file of a few hundred values for each use held the thread for milliseconds
 * at a time; parsed once, file by file, what waits on the thread (an API call, a page) runs
 * between two files.
 */
export async function parseFiles(files: readonly WorkflowFile[]): Promise<ParsedFile[]> {
  const parsed: ParsedFile[] = [];
  for (const file of files) {
    if (parsed.length > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    parsed.push(parseFile(file));
  }
  return parsed;
}
