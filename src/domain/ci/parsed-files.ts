import type { WorkflowFile } from '../../git/workflow-files.ts';
import { fileName } from './event-payloads.ts';
import type { ParsedWorkflow } from './workflow/workflow-parse.ts';
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
 * Each file parsed once for everything an event does with it (its schedules, its runs), one
 * after the other: the parser's threads are few and shared by every push.
 */
export async function parseFiles(
  files: readonly WorkflowFile[],
  parser: WorkflowParser,
): Promise<ParsedFile[]> {
  const parsed: ParsedFile[] = [];
  for (const file of files) parsed.push(await parseFile(file, parser));
  return parsed;
}
