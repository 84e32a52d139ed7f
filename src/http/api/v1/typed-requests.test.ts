/**
 * The REST routes read params, query and bodies as their TypeBox schemas type them (through
 * the type provider), so what a route reads is what was validated. A cast of a request part
 * would let the two drift apart unseen; this holds every route module free of one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const HERE = dirname(fileURLToPath(import.meta.url));

/** `request.body as …`, `(request.params as …)`, `request.query ?? {}) as …` and the like. */
const CAST = /request\.(?:body|params|query)\b[^;\n]*?\)?\s+as\s+[{A-Z(]/;

/** Lines of `text` that cast a part of the request. */
function casts(text: string): string[] {
  return text.split('\n').filter((line) => CAST.test(line));
}

describe('REST route modules', () => {
  it('find a cast of a request part when one is written', () => {
    expect(casts('const body = request.body as { name: string };')).toHaveLength(1);
    expect(casts('(request.params as { org: string }).org')).toHaveLength(1);
    expect(casts('const body = (request.body ?? {}) as Option;')).toHaveLength(1);
    expect(casts('const { body } = request;')).toEqual([]);
  });

  it('read every request part through its schema, never through a cast', () => {
    const modules = readdirSync(HERE).filter((name) => name.endsWith('.routes.ts'));
    expect(modules.length).toBeGreaterThan(10);
    const found = modules.flatMap((name) =>
      casts(readFileSync(join(HERE, name), 'utf8')).map((line) => `${name}: ${line.trim()}`),
    );
    expect(found).toEqual([]);
  });
});
