// Workflow files that are costly to parse, for the tests that hold parsing off the request thread.

/** One job that every file below ends with, so that the files are valid workflows. */
export const ONE_JOB = 'jobs:\n  a:\n    runs-on: x\n    steps: [{run: a}]\n';

/** `unit(n)` repeated until the text is about `bytes` long. */
function grown(bytes: number, unit: (n: number) => string): string {
  const parts: string[] = [];
  for (let size = 0, n = 0; size < bytes; n++) {
    const part = unit(n);
    parts.push(part);
    size += part.length;
  }
  return parts.join('');
}

/** About `bytes` of distinct keys in one mapping: checking them unique takes seconds. */
export function keyHeavy(bytes: number): string {
  return `on: push\nenv:\n${grown(bytes, (n) => `  k${n}: v\n`)}${ONE_JOB}`;
}

/** About `bytes` of flow mappings under `env:`: a second or so of YAML parsing. */
export function flowHeavy(bytes: number): string {
  return `on: push\nenv:\n  x: [${grown(bytes, (n) => `{a: ${n}, b: [c, d]}, `)}]\n${ONE_JOB}`;
}
