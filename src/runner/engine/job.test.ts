/**
 * The step engine on real processes: a job runs in a temporary work root and reports into a sink
 * that records every line and step result.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJob } from './job.ts';
import type { Conclusion, HostInput, JobSink, TaskInput } from './task-input.ts';

let workRoot: string;
beforeAll(async () => {
  workRoot = await mkdtemp(join(tmpdir(), 'kiln-engine-'));
});
afterAll(async () => {
  await rm(workRoot, { recursive: true, force: true });
});

class RecordingSink implements JobSink {
  readonly lines: string[] = [];
  readonly results = new Map<number, Conclusion>();
  readonly started: number[] = [];
  line(content: string): void {
    this.lines.push(content);
  }
  stepStarted(index: number): void {
    this.started.push(index);
  }
  stepFinished(index: number, conclusion: Conclusion): void {
    this.results.set(index, conclusion);
  }
}

function host(): HostInput {
  return {
    workRoot,
    runnerName: 'test-runner',
    instance: 'http://127.0.0.1:1',
    hostEnv: { PATH: process.env.PATH, HOME: process.env.HOME },
    killGraceMs: 500,
  };
}

function task(workflow: string, extra: Partial<TaskInput> = {}): TaskInput {
  return {
    id: '7',
    workflowPayload: workflow,
    context: {
      repository: 'alice/demo',
      sha: 'abc123',
      ref: 'refs/heads/main',
      event_name: 'push',
      event: { ref: 'refs/heads/main' },
    },
    secrets: {},
    vars: {},
    needs: {},
    ...extra,
  };
}

async function run(
  workflow: string,
  extra: Partial<TaskInput> = {},
  signal = new AbortController().signal,
) {
  const sink = new RecordingSink();
  const result = await runJob(task(workflow, extra), host(), sink, signal);
  return { ...result, sink, text: sink.lines.join('\n') };
}

describe('runJob', () => {
  it('runs bash steps with GitHub variables, env levels and expressions', async () => {
    const { result, text } = await run(`
env: { LEVEL: workflow, W: w }
jobs:
  build:
    env: { LEVEL: job }
    steps:
      - run: echo "$GITHUB_REPOSITORY $GITHUB_SHA $CI $RUNNER_OS $LEVEL $W $STEP"
        env: { STEP: "\${{ github.ref }}" }
      - run: echo "cwd=$(pwd)" && test "$GITHUB_WORKSPACE" = "$(pwd)"
      - run: echo "\${{ format('{0}-{1}', 'a', env.LEVEL) }}"
`);
    expect(result).toBe('success');
    expect(text).toContain('alice/demo abc123 true Linux job w refs/heads/main');
    expect(text).toContain('a-job');
  });

  it('carries GITHUB_ENV, GITHUB_PATH and heredoc outputs to later steps and job outputs', async () => {
    const { result, outputs, text } = await run(`
jobs:
  build:
    outputs:
      greeting: \${{ steps.one.outputs.greeting }}
      multi: \${{ steps.one.outputs.multi }}
    steps:
      - id: one
        run: |
          echo "FROM_ENV=yes" >> "$GITHUB_ENV"
          mkdir -p "$RUNNER_TEMP/bin" && printf '#!/bin/sh\\necho tool-ran\\n' > "$RUNNER_TEMP/bin/mytool" && chmod +x "$RUNNER_TEMP/bin/mytool"
          echo "$RUNNER_TEMP/bin" >> "$GITHUB_PATH"
          echo "greeting=hello" >> "$GITHUB_OUTPUT"
          printf 'multi<<EOF\\nline 1\\nline 2\\nEOF\\n' >> "$GITHUB_OUTPUT"
      - run: echo "env=$FROM_ENV out=\${{ steps.one.outputs.greeting }}" && mytool
`);
    expect(result).toBe('success');
    expect(text).toContain('env=yes out=hello');
    expect(text).toContain('tool-ran');
    expect(outputs).toEqual({ greeting: 'hello', multi: 'line 1\nline 2' });
  });

  it('masks secrets and ::add-mask:: values, longest first', async () => {
    const { text } = await run(
      `
jobs:
  build:
    steps:
      - run: |
          echo "secret is \${{ secrets.TOKEN }} and \${{ secrets.SHORT }}"
          echo "::add-mask::hidden-value"
          echo "later hidden-value"
`,
      { secrets: { TOKEN: 'abcdef-long', SHORT: 'abc' } },
    );
    expect(text).toContain('secret is *** and ***');
    expect(text).toContain('::add-mask::***');
    expect(text).toContain('later ***');
    expect(text).not.toMatch(/abc|hidden-value/);
  });

  it('masks a secret whose halves reach the runner in separate pieces of output', async () => {
    const { text } = await run(
      `
jobs:
  build:
    steps:
      - run: |
          printf 'first half abcdef'
          sleep 0.3
          printf -- '-long second half\\n'
`,
      { secrets: { TOKEN: 'abcdef-long' } },
    );
    expect(text).toContain('first half *** second half');
    expect(text).not.toContain('abcdef');
  });

  it('masks an ::add-mask:: value from its line on, inside a fast stream of output', async () => {
    const { sink } = await run(`
jobs:
  build:
    steps:
      - run: |
          for i in $(seq 3000); do
            if [ $i = 1500 ]; then echo "::add-mask::late-secret"; fi
            echo "line $i late-secret"
          done
`);
    const lines = sink.lines.filter((line) => line.startsWith('line '));
    expect(lines).toHaveLength(3000);
    expect(lines.slice(0, 1499).every((line, i) => line === `line ${i + 1} late-secret`)).toBe(
      true,
    );
    expect(lines.slice(1499).every((line, i) => line === `line ${i + 1500} ***`)).toBe(true);
    expect(sink.lines).toContain('::add-mask::***');
  });

  it('applies failure(), always(), continue-on-error and step outcomes', async () => {
    const { result, sink, text } = await run(`
jobs:
  build:
    steps:
      - id: soft
        run: exit 3
        continue-on-error: true
      - run: echo "soft outcome=\${{ steps.soft.outcome }} conclusion=\${{ steps.soft.conclusion }}"
      - run: exit 1
      - run: echo never
      - if: failure()
        run: echo on-failure
      - if: always()
        run: echo always-ran
`);
    expect(result).toBe('failure');
    expect(text).toContain('soft outcome=failure conclusion=success');
    expect(text).not.toContain('never');
    expect(text).toContain('on-failure');
    expect(text).toContain('always-ran');
    expect([...sink.results.entries()]).toEqual([
      [0, 'success'],
      [1, 'success'],
      [2, 'failure'],
      [3, 'skipped'],
      [4, 'success'],
      [5, 'success'],
    ]);
  });

  it('runs sh, python and node shells and honours defaults.run and working-directory', async () => {
    const { result, text } = await run(`
defaults:
  run: { shell: sh }
jobs:
  build:
    steps:
      - run: mkdir sub && echo "shell is sh"
      - run: print("python says", 6 * 7)
        shell: python
      - run: console.log('node says', process.cwd().endsWith('/sub'))
        shell: node
        working-directory: sub
`);
    expect(result).toBe('success');
    expect(text).toContain('shell is sh');
    expect(text).toContain('python says 42');
    expect(text).toContain('node says true');
  });

  it('stops a step at its timeout, with everything it started', async () => {
    const started = Date.now();
    const { result, sink, text } = await run(`
jobs:
  build:
    steps:
      - run: sleep 30 & sleep 30
        timeout-minutes: 0.01
`);
    expect(result).toBe('failure');
    expect(sink.results.get(0)).toBe('failure');
    expect(text).toContain('timeout');
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('cancels the running step and still runs always() steps', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 500);
    const { result, sink, text } = await run(
      `
jobs:
  build:
    steps:
      - run: echo begin && sleep 30
      - run: echo skipped-after-cancel
      - if: cancelled()
        run: echo cleanup
`,
      {},
      controller.signal,
    );
    expect(result).toBe('cancelled');
    expect(sink.results.get(0)).toBe('cancelled');
    expect(sink.results.get(1)).toBe('skipped');
    expect(text).toContain('cleanup');
  });

  it('skips a job whose if: is false and fails one that asks for containers', async () => {
    expect(
      (await run('jobs:\n  a:\n    if: false\n    steps:\n      - run: echo hi\n')).result,
    ).toBe('skipped');
    const docker = await run(
      'jobs:\n  a:\n    container: node:20\n    steps:\n      - run: echo hi\n',
    );
    expect(docker.result).toBe('failure');
    expect(docker.text).toContain('does not run containers');
  });

  it('groups the step summary into the log and drops ::debug:: unless debugging', async () => {
    const { text } = await run(`
jobs:
  a:
    steps:
      - run: |
          echo "::debug::quiet"
          echo "## Results" >> "$GITHUB_STEP_SUMMARY"
`);
    expect(text).not.toContain('quiet');
    expect(text).toContain('::group::Step summary\n## Results\n::endgroup::');
  });
});
