/**
 * Released actions' `action.yml` (inputs, defaults and `runs:` as published, from
 * test/fixtures/actions) served from a git actions source, each with a probe of our own in place
 * of its code that prints what it received: the runner must hand them what GitHub's runner does.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { publishAction, runTestJob } from './test-support.ts';

const FIXTURES = join(import.meta.dirname, '../../../test/fixtures/actions');
const TOKEN = 'task-token-0123456789';

/** Prints what the action was given, saves state both ways, and sets outputs both ways. */
const PROBE = `const { appendFileSync } = require('node:fs');
const { relative } = require('node:path');
const e = process.env;
const pick = (re) => Object.fromEntries(Object.entries(e).filter(([k]) => re.test(k)));
const visits = Number(e.STATE_visits || 0) + 1;
console.log('PROBE ' + JSON.stringify({
  script: relative(e.GITHUB_ACTION_PATH, process.argv[1]),
  node: process.version,
  inputs: pick(/^INPUT_/),
  state: pick(/^STATE_/),
  env: pick(/^(GITHUB_ACTION|GITHUB_ACTION_PATH|GITHUB_ACTION_REPOSITORY|GITHUB_ACTION_REF|GITHUB_API_URL|GITHUB_GRAPHQL_URL|RUNNER_NAME|RUNNER_TOOL_CACHE)$/),
}));
appendFileSync(e.GITHUB_STATE, 'visits=' + visits + '\\n');
console.log('::save-state name=legacy::saved by ' + relative(e.GITHUB_ACTION_PATH, process.argv[1]));
console.log('::set-output name=legacy::old-style');
appendFileSync(e.GITHUB_OUTPUT, 'modern=new-style\\n');
if (e.PROBE_FAIL) process.exit(1);
`;

type Probe = {
  script: string;
  node: string;
  inputs: Record<string, string>;
  state: Record<string, string>;
  env: Record<string, string>;
};

let root: string;
let source: string;

/** A released action's metadata with the probe at every script its `runs:` names. */
async function publishFixture(file: string, full: string, tag: string) {
  const yml = await readFile(join(FIXTURES, file), 'utf8');
  const runs = (parse(yml) as { runs: Record<string, string> }).runs;
  const files: Record<string, string> = { 'action.yml': yml };
  for (const phase of ['pre', 'main', 'post']) if (runs[phase]) files[runs[phase]] = PROBE;
  await publishAction(source, full, tag, files);
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'kiln-real-actions-'));
  source = join(root, 'source');
  await publishFixture('checkout-v4.yml', 'actions/checkout', 'v4');
  await publishFixture('cache-v4.yml', 'actions/cache', 'v4');
  await publishFixture('github-script-v6.yml', 'actions/github-script', 'v6');
  await publishFixture('github-script-v7.yml', 'actions/github-script', 'v7');
  await publishFixture('upload-artifact-v3.yml', 'actions/upload-artifact', 'v3');
  await publishFixture('upload-artifact-v4.yml', 'actions/upload-artifact', 'v4');
  await publishFixture('setup-node-v2.yml', 'actions/setup-node', 'v2');
  await publishFixture('setup-node-v4.yml', 'actions/setup-node', 'v4');
}, 60_000);
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function run(steps: string) {
  const context = {
    repository: 'alice/demo',
    server_url: 'http://127.0.0.1:1',
    api_url: 'http://127.0.0.1:1/api/v1',
    graphql_url: '',
    token: TOKEN,
    gitea_default_actions_url: `file://${source}`,
  };
  const workflow = `jobs:\n  build:\n    steps:\n${steps}`;
  const outcome = await runTestJob(join(root, 'work'), workflow, {
    context,
    runnerName: 'probe-runner',
  });
  const { lines } = outcome;
  const probes = lines
    .filter((l) => l.startsWith('PROBE '))
    .map((l) => JSON.parse(l.slice(6)) as Probe);
  return { ...outcome, probes };
}

describe('released actions on the runner', () => {
  it('gives actions/checkout@v4 its defaults as GitHub does, and its post step the state', async () => {
    const { result, text, probes } = await run(`
      - uses: actions/checkout@v4
      - uses: actions/checkout@v4
        with: { fetch-depth: 0, lfs: true, filter: , path: sub, Ref: main }
`);
    expect(result, text).toBe('success');
    const [first, second, post2, post1] = probes;
    expect(first?.inputs).toEqual({
      INPUT_REPOSITORY: 'alice/demo',
      // The task token, masked in the log as every secret is.
      INPUT_TOKEN: '***',
      'INPUT_SSH-STRICT': 'true',
      'INPUT_SSH-USER': 'git',
      'INPUT_PERSIST-CREDENTIALS': 'true',
      INPUT_CLEAN: 'true',
      'INPUT_SPARSE-CHECKOUT-CONE-MODE': 'true',
      'INPUT_FETCH-DEPTH': '1',
      'INPUT_FETCH-TAGS': 'false',
      'INPUT_SHOW-PROGRESS': 'true',
      INPUT_LFS: 'false',
      INPUT_SUBMODULES: 'false',
      'INPUT_SET-SAFE-DIRECTORY': 'true',
      'INPUT_ALLOW-UNSAFE-PR-CHECKOUT': 'false',
    });
    expect(second?.inputs).toMatchObject({
      'INPUT_FETCH-DEPTH': '0',
      INPUT_LFS: 'true',
      INPUT_FILTER: '',
      INPUT_PATH: 'sub',
      INPUT_REF: 'main',
    });
    expect(text).not.toContain('null');
    expect(first?.env).toMatchObject({
      GITHUB_ACTION: '__actions_checkout',
      GITHUB_ACTION_REPOSITORY: 'actions/checkout',
      GITHUB_ACTION_REF: 'v4',
      GITHUB_API_URL: 'http://127.0.0.1:1/api/v1',
      GITHUB_GRAPHQL_URL: 'http://127.0.0.1:1/api/graphql',
      RUNNER_NAME: 'probe-runner',
      RUNNER_TOOL_CACHE: join(root, 'work', 'tool-cache'),
    });
    expect(first?.env.GITHUB_ACTION_PATH).toMatch(/actions\/checkout@v4$/);
    expect(second?.env.GITHUB_ACTION).toBe('__actions_checkout_2');
    // Post steps run last, in reverse order, each with the state its own main saved.
    expect(post2?.env.GITHUB_ACTION).toBe('__actions_checkout_2');
    expect(post1?.env.GITHUB_ACTION).toBe('__actions_checkout');
    expect(post1?.state).toEqual({ STATE_visits: '1', STATE_legacy: 'saved by dist/index.js' });
    expect(post1?.inputs['INPUT_FETCH-DEPTH']).toBe('1');
  });

  it('evaluates expression defaults and runs node12, node16 and node20 actions on its own Node', async () => {
    const { result, text, probes } = await run(`
      - uses: actions/github-script@v7
        id: script
        with: { script: return 1 }
      - uses: actions/github-script@v6
        with: { script: return 2 }
      - uses: actions/setup-node@v2
      - uses: actions/setup-node@v4
      - uses: actions/upload-artifact@v3
        with: { path: dist, retention-days: 3 }
      - uses: actions/upload-artifact@v4
        with: { path: dist }
      - run: echo "outputs \${{ steps.script.outputs.legacy }} \${{ steps.script.outputs.modern }}"
`);
    expect(result, text).toBe('success');
    expect(probes.map((p) => p.node)).toEqual(probes.map(() => process.version));
    const [v7, v6, node2, node4, upload3, upload4] = probes;
    expect(v7?.inputs).toMatchObject({
      'INPUT_GITHUB-TOKEN': '***',
      INPUT_DEBUG: 'false',
      INPUT_RETRIES: '0',
      'INPUT_RETRY-EXEMPT-STATUS-CODES': '400,401,403,404,422',
      'INPUT_RESULT-ENCODING': 'json',
    });
    expect(v7?.env.GITHUB_ACTION).toBe('script');
    expect(v6?.inputs.INPUT_SCRIPT).toBe('return 2');
    expect(node2?.inputs.INPUT_TOKEN).toBe('***');
    // `github.server_url == 'https://github.com' && github.token || ''` off github.com
    expect(node4?.inputs.INPUT_TOKEN).toBe('');
    expect(upload3?.inputs).toMatchObject({ INPUT_NAME: 'artifact', 'INPUT_RETENTION-DAYS': '3' });
    expect(upload4?.inputs).toMatchObject({
      'INPUT_COMPRESSION-LEVEL': '6',
      INPUT_OVERWRITE: 'false',
    });
    expect(text).toContain('outputs old-style new-style');
  });

  it('runs actions/cache@v4 post step only while the job succeeds (post-if: success())', async () => {
    const passing = await run(`
      - uses: actions/cache@v4
        with: { path: x, key: k }
`);
    expect(passing.probes.map((p) => p.script)).toEqual([
      'dist/restore/index.js',
      'dist/save/index.js',
    ]);
    expect(passing.probes[1]?.state.STATE_visits).toBe('1');
    const failing = await run(`
      - uses: actions/cache@v4
        with: { path: x, key: k }
      - run: exit 1
`);
    expect(failing.result).toBe('failure');
    expect(failing.probes.map((p) => p.script)).toEqual(['dist/restore/index.js']);
  });
});
