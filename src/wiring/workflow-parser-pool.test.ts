import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { flowHeavy, keyHeavy, ONE_JOB } from '../domain/ci/workflow/hostile-workflows.fixture.ts';
import { WorkflowError } from '../domain/ci/workflow/workflow-error.ts';
import { parseWorkflow, planJobs } from '../domain/ci/workflow/workflow-parse.ts';
import { workflowParserPool } from './workflow-parser-pool.ts';

const pools: { close(): Promise<void> }[] = [];
afterAll(() => Promise.all(pools.map((pool) => pool.close())));

function pool(options?: Parameters<typeof workflowParserPool>[0]) {
  const made = workflowParserPool(options);
  pools.push(made);
  return made;
}

describe('workflowParserPool', () => {
  it('keeps the event loop turning while a 500 KiB hostile workflow is parsed', async () => {
    const parser = pool({ timeoutMs: 60_000 });
    await parser.parse('warm.yml', `on: push\n${ONE_JOB}`);
    const text = flowHeavy(500 * 1024);
    const threadCpu = async (work: () => unknown) => {
      const cpu = process.threadCpuUsage();
      await work();
      const { user, system } = process.threadCpuUsage(cpu);
      return user + system;
    };
    const inProcess = await threadCpu(() => parseWorkflow('big.yml', text));
    // What this thread spends through the pool is sending the text and taking the answer: a
    // small part of parsing it here, measured in the same run.
    const throughPool = await threadCpu(async () => {
      expect((await parser.parse('big.yml', text)).name).toBe('big.yml');
    });
    expect(throughPool / inProcess).toBeLessThan(0.1);
  }, 120_000);

  it('abandons a parse past its deadline as a workflow error, and parses on with a new worker', async () => {
    const parser = pool({ workers: 1, timeoutMs: 300 });
    const good = `on: push\n${ONE_JOB}`;
    await parser.parse('warm.yml', good);
    await expect(parser.parse('keys.yml', keyHeavy(500 * 1024))).rejects.toThrow(
      new WorkflowError('the workflow took longer than 0.3 s to parse and was abandoned'),
    );
    // The one worker was terminated with the parse: the next file is parsed by its replacement.
    expect((await parser.parse('next.yml', good)).name).toBe('next.yml');
  }, 60_000);

  it('answers any hostile file within the deadline, costing this thread little (generated)', async () => {
    const parser = pool({ workers: 1, timeoutMs: 500 });
    const repeat = (unit: string, bytes: number) => unit.repeat(Math.ceil(bytes / unit.length));
    const shapes: Record<string, (bytes: number) => string> = {
      keys: keyHeavy,
      flows: flowHeavy,
      nested: (bytes) =>
        `on: push\nenv:\n  x: ${repeat('[', bytes / 2)}${repeat(']', bytes / 2)}\n${ONE_JOB}`,
      aliases: (bytes) =>
        `on: push\nenv:\n  a: &a [${repeat('x, ', bytes / 2)}]\n  b: [${repeat('*a, ', 90)}]\n${ONE_JOB}`,
      scalars: (bytes) => `on: push\nenv:\n  x: "${repeat('\\u00e9', bytes)}"\n${ONE_JOB}`,
    };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(shapes)),
        fc.integer({ min: 16, max: 500 }),
        async (shape, kib) => {
          const text = (shapes[shape] ?? keyHeavy)(kib * 1024).slice(0, 512 * 1024);
          const cpu = process.threadCpuUsage();
          const outcome = await parser.parse('x.yml', text).then(
            (workflow) => workflow.name,
            (error: unknown) => error,
          );
          const { user, system } = process.threadCpuUsage(cpu);
          expect(outcome === 'x.yml' || outcome instanceof Error).toBe(true);
          // This thread's part: the text sent, the answer or the deadline's error taken, and,
          // after a deadline, starting the replacement worker (tens of milliseconds of its own).
          // Parsing these files here costs from a second to many.
          expect((user + system) / 1000).toBeLessThan(250);
        },
      ),
      { numRuns: 12 },
    );
  }, 120_000);

  it('answers a YAML error as the in-process parse throws it, line and all', async () => {
    const parser = pool();
    const text = 'on: push\njobs:\n  a: [\n';
    const thrown = (() => {
      try {
        parseWorkflow('x.yml', text);
      } catch (error) {
        return error as WorkflowError;
      }
    })();
    const error = await parser.parse('x.yml', text).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WorkflowError);
    expect((error as WorkflowError).message).toBe(thrown?.message);
    expect((error as WorkflowError).line).toBe(thrown?.line);
  });

  it('gives the same parse and plan through the worker as in process (generated)', async () => {
    const parser = pool();
    const id = fc.constantFrom('build', 'test', 'lint', 'deploy');
    const scalar = fc.oneof(
      fc.constantFrom('x', 'y z', `\${{ github.sha }}`, '#', ''),
      fc.integer(),
    );
    const job = fc.record({
      name: fc.option(fc.constantFrom(`Build \${{ matrix.os }}`, 'plain', ''), { nil: undefined }),
      runsOn: fc.constantFrom('linux', '[a, b]', `\${{ matrix.os }}`, '{labels: [x]}'),
      matrix: fc.option(
        fc.dictionary(fc.constantFrom('os', 'v'), fc.array(scalar, { maxLength: 3 })),
        {
          nil: undefined,
        },
      ),
      needs: fc.option(id, { nil: undefined }),
    });
    const workflow = fc.dictionary(id, job, { minKeys: 1, maxKeys: 3 }).map((jobs) => {
      const lines = ['name: ci', 'on: [push]', 'env: {A: "1"}', 'jobs:'];
      for (const [jobId, spec] of Object.entries(jobs)) {
        lines.push(`  ${jobId}:`, `    runs-on: ${spec.runsOn}`);
        if (spec.name !== undefined) lines.push(`    name: ${JSON.stringify(spec.name)}`);
        if (spec.needs !== undefined) lines.push(`    needs: ${spec.needs}`);
        if (spec.matrix !== undefined)
          lines.push(`    strategy: {matrix: ${JSON.stringify(spec.matrix)}}`);
        lines.push('    steps:', '      - run: echo hi # a comment', '      - uses: a/b@v1');
      }
      return `${lines.join('\n')}\n`;
    });
    const contexts = { github: { sha: 'abc' }, vars: {}, inputs: {} };
    const outcome = async (run: () => Promise<unknown>) => {
      try {
        return { value: await run() };
      } catch (error) {
        return { error: (error as Error).message };
      }
    };
    await fc.assert(
      fc.asyncProperty(workflow, async (text) => {
        const local = await outcome(async () => planJobs(parseWorkflow('ci.yml', text), contexts));
        const remote = await outcome(async () =>
          parser.plan(await parser.parse('ci.yml', text), contexts),
        );
        expect(remote).toEqual(local);
      }),
      { numRuns: 40 },
    );
  }, 60_000);
});
