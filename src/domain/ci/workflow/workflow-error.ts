/** A workflow file that cannot be run; `line` (1-based) points at the problem when known. */
export class WorkflowError extends Error {
  readonly line: number | undefined;

  constructor(message: string, line?: number) {
    super(line === undefined ? message : `line ${line}: ${message}`);
    this.line = line;
  }
}
