/**
 * Workflow commands a step prints on its own line (`::name key=value,…::message`). Only the ones
 * that change what the runner does are interpreted; the rest stay in the log, where Gitea's log
 * view renders groups and annotations from the same text.
 *
 * Annotations travel as log rows, as with act_runner and the Forgejo runner: the server finds
 * them in the rows it stores, so the runner sends each `::error`, `::warning` and `::notice`
 * line as the step printed it (after masking, which only replaces secrets with `***`), one row
 * per line, never rewritten, joined or split. A row is an annotation when its content, after
 * leading white space, reads
 *
 *     ::error|warning|notice[ key=value[,key=value…]]::message
 *
 * with the command's name in any case, the keys `file`, `line`, `endLine`, `col`, `endColumn`
 * and `title`, and the toolkit's escapes: `%25` `%0D` `%0A` in the message and, in values, also
 * `%3A` (`:`) and `%2C` (`,`). The runner's own failures (a step's exit code, timeout,
 * cancellation, an action that cannot be fetched) are rows of the same form without keys. Rows
 * between `::stop-commands::TOKEN` and `::TOKEN::` are plain text and must not be read as
 * commands; the runner passes them on unchanged too.
 */

/** One parsed command. */
export type WorkflowCommand = {
  readonly name: string;
  readonly properties: Record<string, string>;
  readonly message: string;
};

const COMMAND = /^::([A-Za-z-]+)(?:\s+([^:]*))?::(.*)$/;

/**
 * Whether a line can be a command: it starts with `:` or with a character `trimStart` may
 * remove (every JavaScript white space or line terminator is at most U+0020 or above U+007F).
 * Ordinary output fails this on its first character and skips the regular expression.
 */
export function mayBeCommand(line: string): boolean {
  const first = line.charCodeAt(0);
  return first === 0x3a || first <= 0x20 || first > 0x7f;
}

/** Undoes the escaping GitHub's toolkit applies to command messages and properties. */
function unescapeCommand(text: string, property: boolean): string {
  let out = text.replaceAll('%0D', '\r').replaceAll('%0A', '\n');
  if (property) out = out.replaceAll('%3A', ':').replaceAll('%2C', ',');
  return out.replaceAll('%25', '%');
}

/** Parses a log line as a workflow command, or answers undefined when it is not one. */
export function parseWorkflowCommand(line: string): WorkflowCommand | undefined {
  const match = COMMAND.exec(line.trimStart());
  if (!match) return undefined;
  const [, name = '', props = '', message = ''] = match;
  const properties: Record<string, string> = {};
  for (const pair of props.split(',')) {
    const equals = pair.indexOf('=');
    if (equals > 0)
      properties[pair.slice(0, equals).trim()] = unescapeCommand(pair.slice(equals + 1), true);
  }
  return { name: name.toLowerCase(), properties, message: unescapeCommand(message, false) };
}
