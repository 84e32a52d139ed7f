/**
 * Matrix expansion: what planning a pushed workflow costs the main thread when its matrix is the
 * largest allowed (256 combinations, with `exclude` and `include` entries), against planning
 * the same workflow without a matrix (one job), per job; and what refusing matrices over the cap
 * costs (10,000 combinations; a product of a trillion).
 *
 * Each figure is the main thread's CPU (`process.threadCpuUsage()`) around `parseWorkflow` +
 * `planJobs`, what the server's workflow threads run for one workflow file, median of many
 * repetitions after a warm-up, the sides alternating. Targets: the largest allowed matrix ≤ 50 ms;
 * a job of it costs no more than the one job of the same workflow without a matrix (ratio ≤ 1);
 * refusing a larger matrix costs no more than the largest allowed (≤ 50 ms): its declaration is
 * parsed and counted, never expanded. A last figure is what the request thread itself spends
 * when the largest matrix goes through the workflow threads (`workflowParserPool`), as a push's does.
 *
 *   node bench/matrix-expansion.ts [--repetitions 30]
 *
 * Prints a table, then one JSON line `{"figures": [...]}` (see bench/run.ts).
 */
import { parseArgs } from 'node:util';
import { parseWorkflow, planJobs } from '../src/domain/ci/workflow/workflow-parse.ts';
import { workflowParserPool } from '../src/wiring/workflow-parser-pool.ts';
import { median } from './_stats.ts';

const { values: args } = parseArgs({
  options: { repetitions: { type: 'string', default: '30' } },
});
const REPETITIONS = Number(args.repetitions);

const steps = [
  '      - uses: actions/checkout@v4',
  '      - run: npm ci',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: workflow expressions, not JavaScript
  '      - run: npm test -- --node ${{ matrix.node }} --os ${{ matrix.os }}',
].join('\n');

/** A workflow whose one job has `matrix` (YAML text, indented for `strategy:`), or none. */
function workflow(matrix: string | undefined): string {
  const strategy = matrix === undefined ? '' : `    strategy:\n      matrix:\n${matrix}\n`;
  return `on: push\njobs:\n  test:\n    name: test \${{ matrix.os }}\n    runs-on: ubuntu-latest\n${strategy}    steps:\n${steps}\n`;
}

const list = (count: number, prefix: string) =>
  `[${Array.from({ length: count }, (_, at) => `${prefix}${at}`).join(', ')}]`;

// 17 × 16 = 272, less 16 excluded = 256; one include merges into every combination, one into
// some: the largest matrix allowed, with both kinds of entry.
const largest = workflow(
  [
    `        os: ${list(17, 'os-')}`,
    `        node: ${list(16, 'n')}`,
    '        exclude:',
    '          - os: os-16',
    '        include:',
    '          - experimental: false',
    '          - os: os-0',
    '            extra: yes',
  ].join('\n'),
);
const plain = workflow(undefined);
const tenThousand = workflow(`        a: ${list(100, 'a')}\n        b: ${list(100, 'b')}`);
const trillion = workflow(
  ['a', 'b', 'c', 'd'].map((key) => `        ${key}: ${list(1000, key)}`).join('\n'),
);

const contexts = { github: { ref: 'refs/heads/main' }, vars: {}, inputs: {} };

/**
 * Main-thread CPU of parsing and planning `text`, in ms, averaged over `times` in a row (the
 * thread clock ticks too coarsely to time one quick plan); `expect` is the job count or refusal.
 */
function plan(text: string, expect: number | 'refused', times: number): number {
  const before = process.threadCpuUsage();
  for (let at = 0; at < times; at++) {
    let jobs: number | 'refused';
    try {
      jobs = planJobs(parseWorkflow('ci.yml', text), contexts).length;
    } catch {
      jobs = 'refused';
    }
    if (jobs !== expect) throw new Error(`expected ${expect} jobs, planned ${jobs}`);
  }
  const used = process.threadCpuUsage(before);
  return (used.user + used.system) / 1000 / times;
}

const cases = [
  { name: 'largest', text: largest, expect: 256 as const, times: 1 },
  { name: 'plain', text: plain, expect: 1 as const, times: 100 },
  { name: 'ten-thousand', text: tenThousand, expect: 'refused' as const, times: 20 },
  { name: 'trillion', text: trillion, expect: 'refused' as const, times: 5 },
];
const samples = new Map<string, number[]>(cases.map(({ name }) => [name, []]));
for (let round = 0; round < REPETITIONS + 3; round++) {
  for (const { name, text, expect, times } of cases) {
    const ms = plan(text, expect, times);
    // The first rounds warm the YAML parser and the optimizing compilers.
    if (round >= 3) samples.get(name)?.push(ms);
  }
}
const at = (name: string) => median(samples.get(name) ?? []);

/** Request-thread CPU of the largest matrix parsed and planned on the workflow threads, in ms. */
const parser = workflowParserPool();
const offThread: number[] = [];
for (let round = 0; round < REPETITIONS + 3; round++) {
  const before = process.threadCpuUsage();
  const jobs = await parser.plan(await parser.parse('ci.yml', largest), contexts);
  const used = process.threadCpuUsage(before);
  if (jobs.length !== 256) throw new Error(`expected 256 jobs, planned ${jobs.length}`);
  if (round >= 3) offThread.push((used.user + used.system) / 1000);
}
await parser.close();
const offThreadMs = median(offThread);

const largestMs = at('largest');
const plainMs = at('plain');
const perJob = largestMs / 256 / plainMs;
for (const { name } of cases) console.log(`${name.padEnd(14)} ${at(name).toFixed(3)} ms`);
console.log(`per job of the largest ÷ the plain workflow: ${perJob.toFixed(3)}`);
console.log(`largest through the workflow threads: ${offThreadMs.toFixed(3)} ms of this thread`);

const figures = [
  {
    name: 'largest allowed matrix (256 jobs): parse + plan, main-thread CPU, median',
    target: '≤ 50',
    measured: Number(largestMs.toFixed(3)),
    unit: 'ms',
    pass: largestMs <= 50,
  },
  {
    name: 'a job of that matrix ÷ the one job of the same workflow without a matrix',
    target: '≤ 1',
    measured: Number(perJob.toFixed(3)),
    unit: 'ratio',
    pass: perJob <= 1,
  },
  {
    name: 'refusing a 10,000-combination matrix, main-thread CPU, median',
    target: '≤ 50',
    measured: Number(at('ten-thousand').toFixed(3)),
    unit: 'ms',
    pass: at('ten-thousand') <= 50,
  },
  {
    name: 'refusing a matrix whose product is 10¹², main-thread CPU, median',
    target: '≤ 50',
    measured: Number(at('trillion').toFixed(3)),
    unit: 'ms',
    pass: at('trillion') <= 50,
  },
  {
    name: 'largest allowed matrix through the workflow threads: request-thread CPU, median',
    target: '≤ 50',
    measured: Number(offThreadMs.toFixed(3)),
    unit: 'ms',
    pass: offThreadMs <= 50,
  },
];
console.log(JSON.stringify({ figures }));
