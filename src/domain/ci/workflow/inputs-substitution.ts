import { loadOnFirstUse } from '../../../lib/load-on-first-use.ts';
import { interpolate } from './interpolate.ts';

/** The YAML library, loaded with the first payload rewritten. */
const yaml = loadOnFirstUse<typeof import('yaml')>('yaml');

const EXPRESSION = /\$\{\{([\s\S]*?)\}\}/g;

/**
 * A called workflow's job document with each `${{ … }}` that reads `inputs` and nothing else
 * the server does not know replaced by its value, as GitHub puts values into text: so runners
 * that fill `inputs` only for their own events (act_runner, the Forgejo runner) run the job as
 * `kiln runner` does, which reads them from `github.event.inputs` too. An expression that also
 * reads another context (`github`, `matrix`, `steps`…) or a runner function stays for the runner.
 * A value that itself holds `${{` is never put in: the runner would evaluate it, and an input
 * read from a job's output is anyone's text.
 */
export function substituteInputs(payload: string, inputs: Readonly<Record<string, unknown>>) {
  if (!payload.includes('inputs')) return payload;
  const document = yaml().parseDocument(payload);
  if (document.errors.length > 0) return payload;
  let changed = false;
  yaml().visit(document, {
    Scalar(_key, node) {
      if (typeof node.value !== 'string' || !node.value.includes('${{')) return;
      const text = node.value.replace(EXPRESSION, (whole, source: string) => {
        if (!/\binputs\b/.test(source)) return whole;
        const value = inputsOnlyValue(whole, inputs);
        return value === undefined || value.includes('${{') ? whole : value;
      });
      if (text !== node.value) {
        node.value = text;
        changed = true;
      }
    },
  });
  return changed ? document.toString() : payload;
}

/** The expression's value with only `inputs` known, or undefined when it reads anything else. */
function inputsOnlyValue(expression: string, inputs: Readonly<Record<string, unknown>>) {
  try {
    const value = interpolate(expression, { inputs });
    return value === expression ? undefined : value;
  } catch {
    return undefined;
  }
}
