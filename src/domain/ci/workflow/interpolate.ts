import type { data } from '@actions/expressions';
import { loadOnFirstUse } from '../../../lib/load-on-first-use.ts';

/** The expression engine, loaded with the first expression: a server without CI never needs it. */
const expressions = loadOnFirstUse<typeof import('@actions/expressions')>('@actions/expressions');

/** The contexts an interpolation may read (`matrix`, `github`, `vars`, `inputs`), as plain JSON. */
export type ExpressionContexts = Readonly<Record<string, unknown>>;

const EXPRESSION = /\$\{\{([\s\S]*?)\}\}/g;

/**
 * Replaces each `${{ … }}` in `text` with its value evaluated against `contexts`
 * (`'build ${{ matrix.node }}'` → `'build 18'`). An expression that reads a context not given
 * here (`steps`, `secrets`, `needs` — the runner's to evaluate) is left as written; one that does
 * not parse throws, with the expression in the message.
 */
export function interpolate(text: string, contexts: ExpressionContexts): string {
  if (!text.includes('${{')) return text;
  return text.replace(EXPRESSION, (whole, source: string) => {
    const value = evaluate(source, contexts);
    return value === undefined ? whole : value;
  });
}

/**
 * A whole-value expression (`runs-on: ${{ matrix.os }}`) may evaluate to a list; everything else
 * is text.
 */
export function interpolateValue(value: unknown, contexts: ExpressionContexts): unknown {
  if (typeof value !== 'string') return value;
  const whole = /^\s*\$\{\{([\s\S]*?)\}\}\s*$/.exec(value);
  if (whole !== null) {
    const result = evaluateData(whole[1] ?? '', contexts);
    if (result === undefined) return value;
    return JSON.parse(JSON.stringify(result, expressions().data.replacer));
  }
  return interpolate(value, contexts);
}

function evaluate(source: string, contexts: ExpressionContexts): string | undefined {
  return evaluateData(source, contexts)?.coerceString();
}

function evaluateData(source: string, contexts: ExpressionContexts) {
  const names = Object.keys(contexts);
  if (readsUnknownContext(source, names)) return undefined;
  const { data: values, Evaluator, Lexer, Parser } = expressions();
  const lexed = new Lexer(source.trim()).lex();
  const expression = new Parser(lexed.tokens, names, []).parse();
  const dictionary = new values.Dictionary(
    ...names.map((key) => ({
      key,
      value: JSON.parse(
        JSON.stringify(contexts[key] ?? null),
        values.reviver,
      ) as data.ExpressionData,
    })),
  );
  return new Evaluator(expression, dictionary).evaluate();
}

/** Named contexts of the expression language that only the runner knows. */
const RUNNER_CONTEXTS = ['steps', 'secrets', 'needs', 'job', 'runner', 'env', 'strategy', 'jobs'];

function readsUnknownContext(source: string, known: readonly string[]): boolean {
  return RUNNER_CONTEXTS.some(
    (name) => !known.includes(name) && new RegExp(`(^|[^\\w.])${name}\\b`).test(source),
  );
}
