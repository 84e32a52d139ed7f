/**
 * `${{ }}` expressions of a workflow, evaluated with `@actions/expressions` against the contexts a
 * step may see. The status functions (`success()` and friends) are not built into the library, so
 * they are supplied here from the job's state.
 */
import { data, Evaluator, Lexer, Parser } from '@actions/expressions';
import type { FunctionDefinition } from '@actions/expressions/funcs/info';
import { truthy } from '@actions/expressions/result';
import { hashFiles } from './hash-files.ts';

/** What the status functions answer from. */
export type JobStatus = 'success' | 'failure' | 'cancelled';

/** Plain JSON values for each context name (`github`, `env`, `steps`, …). */
export type Contexts = Record<string, unknown>;

/** An expression that does not parse or evaluate, with the text that caused it. */
export class ExpressionFailure extends Error {}

const STATUS_FUNCTIONS = ['success', 'failure', 'always', 'cancelled'] as const;
const STATUS_CALL = /\b(success|failure|always|cancelled)\s*\(/i;

function toData(value: unknown): data.ExpressionData {
  return JSON.parse(JSON.stringify(value ?? null), data.reviver) as data.ExpressionData;
}

function workspaceOf(contexts: Contexts): string | undefined {
  const github = contexts.github;
  if (github === null || typeof github !== 'object') return undefined;
  const workspace = (github as Record<string, unknown>).workspace;
  return typeof workspace === 'string' && workspace !== '' ? workspace : undefined;
}

/** The functions the library lacks: the status functions, and `hashFiles` over the workspace. */
function extraFunctions(status: JobStatus, contexts: Contexts) {
  const answers: Record<(typeof STATUS_FUNCTIONS)[number], boolean> = {
    success: status === 'success',
    failure: status === 'failure',
    always: true,
    cancelled: status === 'cancelled',
  };
  const functions = new Map<string, FunctionDefinition>(
    STATUS_FUNCTIONS.map((name) => [
      name,
      { name, minArgs: 0, maxArgs: 0, call: () => new data.BooleanData(answers[name]) },
    ]),
  );
  functions.set('hashfiles', {
    name: 'hashFiles',
    minArgs: 1,
    maxArgs: 255,
    call: (...args) => {
      const workspace = workspaceOf(contexts);
      if (!workspace) throw new Error('hashFiles() needs the job workspace');
      return new data.StringData(
        hashFiles(
          workspace,
          args.map((arg) => arg.coerceString()),
        ),
      );
    },
  });
  return functions;
}

/** Evaluates one expression (without its `${{ }}`) to the library's data. */
export function evaluate(
  expression: string,
  contexts: Contexts,
  status: JobStatus,
): data.ExpressionData {
  try {
    const lexed = new Lexer(expression).lex();
    const functions = extraFunctions(status, contexts);
    const parsed = new Parser(lexed.tokens, Object.keys(contexts), [...functions.values()]).parse();
    const context = new data.Dictionary(
      ...Object.entries(contexts).map(([key, value]) => ({ key, value: toData(value) })),
    );
    return new Evaluator(parsed, context, functions).evaluate();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ExpressionFailure(`cannot evaluate "${expression}": ${reason}`);
  }
}

/** Converts evaluated data back to plain JSON (objects for dictionaries, arrays, scalars). */
export function toJson(value: data.ExpressionData): unknown {
  return JSON.parse(JSON.stringify(value, data.replacer));
}

/** A value as it is substituted into text: scalars as strings, objects and arrays as JSON. */
function asText(value: data.ExpressionData): string {
  if (value.primitive) return value.coerceString();
  return JSON.stringify(toJson(value), null, 2);
}

/** Index just past the `}}` closing an expression that starts at `from`; quotes may hide braces. */
function closingBraces(text: string, from: number): number {
  let inString = false;
  for (let i = from; i < text.length; i++) {
    const char = text[i];
    if (char === "'") inString = !inString;
    else if (!inString && char === '}' && text[i + 1] === '}') return i + 2;
  }
  return -1;
}

/** Replaces every `${{ expr }}` in `text` with its value; text without one is returned as is. */
export function interpolate(text: string, contexts: Contexts, status: JobStatus): string {
  let out = '';
  let at = 0;
  for (;;) {
    const start = text.indexOf('${{', at);
    if (start < 0) return out + text.slice(at);
    const end = closingBraces(text, start + 3);
    if (end < 0) throw new ExpressionFailure(`unclosed expression in "${text}"`);
    out +=
      text.slice(at, start) + asText(evaluate(text.slice(start + 3, end - 2), contexts, status));
    at = end;
  }
}

/**
 * Decides an `if:` condition. Without a status function the condition implicitly starts with
 * `success() &&`, as GitHub documents, so a failed job skips steps unless they ask otherwise.
 */
export function condition(
  text: string | boolean | undefined,
  contexts: Contexts,
  status: JobStatus,
): boolean {
  if (text === undefined || text === '') return status === 'success';
  if (typeof text === 'boolean') return text && status === 'success';
  let expression = text.trim();
  if (expression.startsWith('${{') && expression.endsWith('}}')) {
    expression = expression.slice(3, -2);
  }
  const guarded = STATUS_CALL.test(expression) ? expression : `success() && (${expression})`;
  return truthy(evaluate(guarded, contexts, status));
}
