// Loaded by load-on-first-use.test.ts: counts how often it is evaluated.
const counter = globalThis as { fixtureLoads?: number };
counter.fixtureLoads = (counter.fixtureLoads ?? 0) + 1;

export const answer = 42;
