/**
 * `uses:` steps on real processes: a local JavaScript action with main and post, remote actions
 * with pre/main/post under pre-if/post-if, a composite action, an action fetched with git from
 * the task's actions source, actions that are not there, and a Docker action refused.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishAction, runTestJob } from './test-support.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'kiln-actions-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const run = (workflow: string, context: Record<string, unknown> = {}) =>
  runTestJob(join(root, 'work'), workflow, { context });

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

/** Prints the phase, the `tag` input and the visits it counts in GITHUB_STATE. */
const phaseJs = (phase: string) => `const e = process.env;
const phase = '${phase}';
const visits = Number(e.STATE_visits || 0) + 1;
const which = e.GITHUB_ACTION_REPOSITORY === 'acme/quiet' ? 'quiet' : e.INPUT_TAG;
console.log('phase ' + which + ' ' + phase + '-visit ' + visits + ' from ' + (e.STATE_visits || ''));
require('fs').appendFileSync(e.GITHUB_STATE, 'visits=' + visits + '\\n');
`;

const PHASES = Object.fromEntries(['pre', 'main', 'post'].map((p) => [`${p}.js`, phaseJs(p)]));

const publish = (owner: string, name: string, files: Record<string, string>) =>
  publishAction(join(root, 'source'), `${owner}/${name}`, 'v1', files);

describe('actions', () => {
  it('runs a local JavaScript action with inputs, state, outputs and a post step, not its pre', async () => {
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
    // As on GitHub: the workspace holds no action when the job starts, so its pre cannot run.
    expect(text).toContain('::warning::the pre step of ./greet is not run');
    expect(text).toContain('hello kiln! undefined');
    expect(text).toContain('said=yes');
    expect(text.indexOf('post ran')).toBeGreaterThan(text.indexOf('said=yes'));
  });

  it('runs pre steps before the first step under pre-if, and post steps last under post-if', async () => {
    await publish('acme', 'phases', {
      'action.yml': `inputs:\n  tag: { default: x }\n  pre-when: { default: 'true' }\nruns:\n  using: node16\n  pre: pre.js\n  pre-if: \${{ runner.os != 'Plan9' }}\n  main: main.js\n  post: post.js\n`,
      ...PHASES,
    });
    await publish('acme', 'quiet', {
      'action.yml': `runs:\n  using: node24\n  pre: pre.js\n  pre-if: false\n  main: main.js\n  post: post.js\n  post-if: failure()\n`,
      ...PHASES,
    });
    const context = { gitea_default_actions_url: `file://${join(root, 'source')}` };
    const { result, text } = await run(
      `
jobs:
  a:
    steps:
      - run: echo first step
      - uses: acme/phases@v1
        with: { tag: one }
      - uses: acme/quiet@v1
      - uses: acme/phases@v1
        with: { tag: two }
      - run: exit 3
`,
      context,
    );
    expect(result).toBe('failure');
    const phases = text.split('\n').filter((l) => l.startsWith('phase '));
    expect(phases, text).toEqual([
      'phase one pre-visit 1 from ',
      'phase two pre-visit 1 from ',
      'phase one main-visit 2 from 1',
      'phase quiet main-visit 1 from ',
      'phase two main-visit 2 from 1',
      // Reverse order; quiet's post-if: failure() holds now that the last step failed.
      'phase two post-visit 3 from 2',
      'phase quiet post-visit 2 from 1',
      'phase one post-visit 3 from 2',
    ]);
    expect(text.indexOf('phase one pre')).toBeLessThan(text.indexOf('first step'));
  });

  it('fails the job when a post step fails', async () => {
    await publish('acme', 'bad-post', {
      'action.yml': 'runs:\n  using: node12\n  main: ok.js\n  post: bad.js\n',
      'ok.js': 'console.log("main fine")',
      'bad.js': 'process.exit(4)',
    });
    const context = { gitea_default_actions_url: `file://${join(root, 'source')}` };
    const { result, results } = await run(
      'jobs:\n  a:\n    steps:\n      - uses: acme/bad-post@v1\n',
      context,
    );
    expect(results).toEqual(['success']);
    expect(result).toBe('failure');
  });

  it('says which action is not at the source, for a missing repository and a missing ref', async () => {
    await publish('acme', 'present', { 'action.yml': 'runs:\n  using: node20\n  main: x.js\n' });
    const source = `file://${join(root, 'source')}`;
    const { result, text } = await run(
      'jobs:\n  a:\n    steps:\n      - uses: acme/absent@v1\n        continue-on-error: true\n      - uses: acme/present@v9\n',
      { gitea_default_actions_url: source },
    );
    expect(result).toBe('failure');
    expect(text).toContain(`::error::action acme/absent@v1 not found at ${source}`);
    expect(text).toContain(`::error::action acme/present@v9 not found at ${source}`);
    expect(text).not.toMatch(/fatal|Username/);
  });

  it("runs the actions a composite action uses, with the composite's inputs, once evaluated", async () => {
    await publish('acme', 'inner', {
      'action.yml':
        'inputs:\n  word: { default: none }\noutputs:\n  echoed: {}\nruns:\n  using: node20\n  main: main.js\n  post: post.js\n',
      'main.js':
        'console.log("inner got " + process.env.INPUT_WORD + " as " + process.env.GITHUB_ACTION_REPOSITORY + " named " + process.env.GITHUB_ACTION); require("fs").appendFileSync(process.env.GITHUB_OUTPUT, "echoed=" + process.env.INPUT_WORD + "\\n")',
      'post.js': 'console.log("inner post")',
    });
    await publish('acme', 'outer', {
      'action.yml': [
        'inputs:',
        '  word: { default: plain }',
        'outputs:',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: workflow expressions, not JavaScript
        '  result: { value: "${{ steps.in.outputs.echoed }}" }',
        'runs:',
        '  using: composite',
        '  steps:',
        '    - id: in',
        '      uses: acme/inner@v1',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: workflow expressions, not JavaScript
        '      with: { word: "${{ inputs.word }}" }',
        '    - run: echo "outer path $GITHUB_ACTION_REPOSITORY"',
        '      shell: bash',
        '',
      ].join('\n'),
    });
    const context = { gitea_default_actions_url: `file://${join(root, 'source')}` };
    const { result, text } = await run(
      `
jobs:
  a:
    steps:
      - id: o
        uses: acme/outer@v1
        with: { word: "\${{ '\${{ github.token }}' }}" }
      - run: echo 'outer said \${{ steps.o.outputs.result }}'
      - run: echo last step
`,
      context,
    );
    expect(result, text).toBe('success');
    // The value is an expression's text, passed on as text and never evaluated again.
    const literal = `\${{ github.token }}`;
    expect(text).toContain(`inner got ${literal} as acme/inner named __acme_inner`);
    expect(text).toContain('outer path acme/outer');
    expect(text).toContain(`outer said ${literal}`);
    expect(text.indexOf('inner post')).toBeGreaterThan(text.indexOf('last step'));
  });

  it('runs a composite action fetched with git from the actions source, cached per ref', async () => {
    await publish('acme', 'tools', {
      'action.yml':
        // biome-ignore lint/suspicious/noTemplateCurlyInString: workflow expressions, not JavaScript
        'inputs:\n  name: { default: x }\noutputs:\n  shout: { value: "${{ steps.s.outputs.v }}" }\nruns:\n  using: composite\n  steps:\n    - id: s\n      shell: bash\n      run: echo "composite ${{ inputs.name }}" && echo "v=LOUD" >> "$GITHUB_OUTPUT"\n',
    });
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
