/**
 * `uses:` steps on real processes: a local JavaScript action with pre/main/post and inputs, a
 * composite action, an action fetched with git from the task's actions source, and a Docker
 * action refused.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJob } from './job.ts';
import type { Conclusion, JobSink } from './task-input.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'kiln-actions-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function run(workflow: string, context: Record<string, unknown> = {}) {
  const lines: string[] = [];
  const results: Conclusion[] = [];
  const sink: JobSink = {
    line: (l) => lines.push(l),
    stepStarted: () => {},
    stepFinished: (_, c) => results.push(c),
  };
  const host = {
    workRoot: join(root, 'work'),
    runnerName: 'r',
    instance: 'http://127.0.0.1:1',
    hostEnv: { PATH: process.env.PATH, HOME: process.env.HOME },
    killGraceMs: 500,
  };
  const task = { id: '1', workflowPayload: workflow, context, secrets: {}, vars: {}, needs: {} };
  const outcome = await runJob(task, host, sink, new AbortController().signal);
  return { ...outcome, results, text: lines.join('\n') };
}

const JS_ACTION = `
mkdir -p greet && cd greet
cat > action.yml <<'YAML'
inputs:
  who: { default: world }
  punctuation: { default: "!" }
runs:
  using: node20
  pre: pre.js
  main: main.js
  post: post.js
YAML
echo 'require("fs").appendFileSync(process.env.GITHUB_STATE, "phase=pre\\n")' > pre.js
echo 'console.log("hello " + process.env.INPUT_WHO + process.env.INPUT_PUNCTUATION, process.env.STATE_phase); require("fs").appendFileSync(process.env.GITHUB_OUTPUT, "said=yes\\n")' > main.js
echo 'console.log("post ran")' > post.js
`;

describe('actions', () => {
  it('runs a local JavaScript action with inputs, state, outputs and a post step', async () => {
    const { result, text } = await run(`
jobs:
  a:
    steps:
      - run: |${JS_ACTION.replaceAll('\n', '\n          ')}
      - id: hi
        uses: ./greet
        with: { who: kiln }
      - run: echo "said=\${{ steps.hi.outputs.said }}"
`);
    expect(result).toBe('success');
    expect(text).toContain('hello kiln! pre');
    expect(text).toContain('said=yes');
    expect(text.indexOf('post ran')).toBeGreaterThan(text.indexOf('said=yes'));
  });

  it('runs a composite action fetched with git from the actions source, cached per ref', async () => {
    const repo = join(root, 'source', 'acme', 'tools');
    await mkdir(repo, { recursive: true });
    await writeFile(
      join(repo, 'action.yml'),
      // biome-ignore lint/suspicious/noTemplateCurlyInString: workflow expressions, not JavaScript
      'inputs:\n  name: { default: x }\noutputs:\n  shout: { value: "${{ steps.s.outputs.v }}" }\nruns:\n  using: composite\n  steps:\n    - id: s\n      shell: bash\n      run: echo "composite ${{ inputs.name }}" && echo "v=LOUD" >> "$GITHUB_OUTPUT"\n',
    );
    const g = (...args: string[]) =>
      execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@e', ...args]);
    g('init', '-q', '-b', 'main');
    g('add', '.');
    g('commit', '-q', '-m', 'action');
    g('tag', 'v1');
    const workflow = `
jobs:
  a:
    steps:
      - id: c
        uses: acme/tools@v1
        with: { name: fetched }
      - run: echo "out=\${{ steps.c.outputs.shout }}"
`;
    const context = { gitea_default_actions_url: `file://${join(root, 'source')}` };
    const first = await run(workflow, context);
    expect(first.result, first.text).toBe('success');
    expect(first.text).toContain('composite fetched');
    expect(first.text).toContain('out=LOUD');
    const second = await run(workflow, context);
    expect(second.text).not.toContain('fetching acme/tools@v1');
  });

  it('fails a Docker action with a message saying why', async () => {
    const { result, text } = await run(
      'jobs:\n  a:\n    steps:\n      - uses: docker://alpine:3\n',
    );
    expect(result).toBe('failure');
    expect(text).toContain('does not run containers');
  });
});
