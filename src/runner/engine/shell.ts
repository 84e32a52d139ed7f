/**
 * How a `run:` script is started for each `shell:` GitHub documents: the command line, with `{0}`
 * standing for the script file, and the file's extension.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** A resolved shell: program, arguments (with the script path in place) and extension. */
export type ShellCommand = { readonly program: string; readonly args: string[] };

const TEMPLATES: Record<string, { line: string; extension: string }> = {
  bash: { line: 'bash --noprofile --norc -e -o pipefail {0}', extension: '.sh' },
  sh: { line: 'sh -e {0}', extension: '.sh' },
  python: { line: 'python {0}', extension: '.py' },
  node: { line: 'node {0}', extension: '.js' },
  pwsh: { line: 'pwsh -command . {0}', extension: '.ps1' },
};

/** An unknown or missing shell: the step fails with this message. */
export class ShellError extends Error {}

/** Full path of `program` on `path`, or undefined. */
export function which(program: string, path: string): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, program);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

/** The extension a script for `shell` should carry. */
export function scriptExtension(shell: string): string {
  return TEMPLATES[shell]?.extension ?? '';
}

/**
 * Builds the command for `shell` (a name above, or a template containing `{0}`) and `script`.
 * Node scripts run with this runner's own Node; `python` falls back to `python3`.
 */
export function shellCommand(shell: string, script: string, path: string): ShellCommand {
  const template = TEMPLATES[shell]?.line ?? shell;
  if (!template.includes('{0}')) {
    throw new ShellError(`unknown shell "${shell}" (a custom shell must contain {0})`);
  }
  const [program = '', ...args] = template.trim().split(/\s+/);
  let resolved: string | undefined;
  if (shell === 'node') resolved = process.execPath;
  else if (shell === 'python') resolved = which('python', path) ?? which('python3', path);
  else resolved = program.includes('/') ? program : which(program, path);
  if (resolved === undefined) throw new ShellError(`shell "${program}" is not installed here`);
  return { program: resolved, args: args.map((arg) => arg.replaceAll('{0}', script)) };
}
