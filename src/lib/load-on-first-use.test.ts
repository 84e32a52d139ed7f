import { describe, expect, it } from 'vitest';
import { loadOnFirstUse } from './load-on-first-use.ts';

const counter = globalThis as { fixtureLoads?: number };

describe('loadOnFirstUse', () => {
  it('loads nothing until the first call, then once for every call', () => {
    const fixture = loadOnFirstUse<{ answer: number }>(
      new URL('./load-on-first-use.fixture.ts', import.meta.url).href,
    );
    expect(counter.fixtureLoads).toBeUndefined();
    expect(fixture().answer).toBe(42);
    expect(fixture().answer).toBe(42);
    expect(counter.fixtureLoads).toBe(1);
  });

  it('loads an ES-module-only package (exports with an `import` condition alone)', () => {
    const expressions =
      loadOnFirstUse<typeof import('@actions/expressions')>('@actions/expressions');
    expect(typeof expressions().Lexer).toBe('function');
  });
});
