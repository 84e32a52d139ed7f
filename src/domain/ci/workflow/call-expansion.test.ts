import { describe, expect, it } from 'vitest';
import { expandRun, type WorkflowLoader } from './call-expansion.ts';
import { decodePermissions } from './permissions.ts';
import { parseWorkflow } from './workflow-parse.ts';
import { inProcessWorkflowParser as parser } from './workflow-parser.ts';

/** Serves `files` by path, counting reads. */
function loaderOf(files: Record<string, string>): { load: WorkflowLoader; reads: () => number } {
  let reads = 0;
  const load: WorkflowLoader = async (ref) => {
    reads++;
    const content = files[ref.path];
    if (content === undefined) throw new Error(`no ${ref.path}`);
    return { content, identity: ref.path, label: ref.path, origin: undefined };
  };
  return { load, reads: () => reads };
}

const ORIGIN = { value: undefined, identity: 'main', label: 'main.yml' };
const contexts = { github: { ref: 'refs/heads/main' }, vars: {}, inputs: {} };

async function expand(main: string, files: Record<string, string>) {
  const { load } = loaderOf(files);
  return expandRun(parseWorkflow('main.yml', main), contexts, { load, parser }, ORIGIN);
}

const LIB = `on:
  workflow_call:
    inputs:
      os: {type: string, default: linux}
jobs:
  one:
    runs-on: \${{ inputs.os }}
    steps: [{run: a}]
  two:
    needs: one
    runs-on: x
    permissions: write-all
    steps: [{run: b}]
`;

describe('expandRun', () => {
  it('keys, names and chains the called jobs, and narrows their permissions to the caller', async () => {
    const run = await expand(
      `on: push
jobs:
  first:
    runs-on: x
    steps: [{run: a}]
  lib:
    name: Library
    needs: first
    permissions: {contents: read}
    uses: ./.gitea/workflows/lib.yml
    with: {os: "\${{ github.ref == 'refs/heads/main' && 'main-os' || 'other' }}"}
  last:
    needs: lib
    runs-on: x
    steps: [{run: c}]
`,
      { '.gitea/workflows/lib.yml': LIB },
    );
    const jobs = Object.fromEntries(run.jobs.map((job) => [job.jobKey, job]));
    expect(Object.keys(jobs).sort()).toEqual(['first', 'last', 'lib/one', 'lib/two']);
    expect(jobs['lib/one']).toMatchObject({
      name: 'Library / one',
      needs: ['first'],
      runsOn: ['main-os'],
    });
    expect(jobs['lib/two']?.needs).toEqual(['lib/one']);
    expect(jobs.last?.needs).toEqual(['lib/one', 'lib/two']);
    // `write-all` asked inside the call stays within the calling job's `contents: read`.
    expect(decodePermissions(jobs['lib/two']?.permissions ?? null).contents).toBe('read');
    expect(decodePermissions(jobs['lib/two']?.permissions ?? null).issues).toBe('none');
    expect(decodePermissions(jobs.first?.permissions ?? null).contents).toBe('write');
    expect(run.calls.lib).toMatchObject({ needs: ['first'], secrets: {} });
  });

  it('skips a call whose if: is false when the run is made, and refuses one it cannot decide', async () => {
    const files = { '.gitea/workflows/lib.yml': LIB };
    const call = (condition: string) =>
      `on: push\njobs:\n  c:\n    if: ${condition}\n    uses: ./.gitea/workflows/lib.yml\n`;
    const skipped = async (condition: string) =>
      (await expand(call(condition), files)).jobs.map((job) => job.skipped);
    expect(await skipped("github.ref == 'refs/heads/main'")).toEqual([false, false]);
    expect(await skipped(`\${{ github.ref != 'refs/heads/main' }}`)).toEqual([true, true]);
    expect(await skipped('false')).toEqual([true, true]);
    for (const condition of ['success()', "needs.a.result == 'success'", 'always()']) {
      await expect(expand(call(condition), files)).rejects.toThrow(
        'job "c": the if: of a job that calls a workflow may read only github, vars and inputs',
      );
    }
  });

  it('refuses what the called workflow does not declare or requires', async () => {
    const lib = `on:\n  workflow_call:\n    inputs: {a: {required: true}}\n    secrets: {s: {required: true}}\njobs:\n  j: {runs-on: x, steps: [{run: a}]}\n`;
    const files = { '.gitea/workflows/lib.yml': lib };
    const call = (extra: string) =>
      `on: push\njobs:\n  c:\n    uses: ./.gitea/workflows/lib.yml\n${extra}`;
    await expect(expand(call('    with: {a: 1, b: 2}\n'), files)).rejects.toThrow(
      'job "c": the called workflow has no input "b"',
    );
    await expect(expand(call('    secrets: {s: x}\n'), files)).rejects.toThrow(
      'job "c": input "a" is required',
    );
    await expect(expand(call('    with: {a: 1}\n'), files)).rejects.toThrow(
      'job "c": secret "s" is required',
    );
    await expect(
      expand(call('    with: {a: 1}\n    secrets: inherit\n'), files),
    ).resolves.toBeDefined();
    await expect(
      expand(
        call('    with: {a: 1}\n    secrets: inherit\n    strategy: {matrix: {x: [1]}}\n'),
        files,
      ),
    ).rejects.toThrow('job "c" calls a workflow and cannot have "strategy"');
    await expect(
      expand(`on: push\njobs:\n  c:\n    uses: ./.gitea/workflows/push.yml\n`, {
        '.gitea/workflows/push.yml': 'on: push\njobs:\n  j: {runs-on: x, steps: [{run: a}]}\n',
      }),
    ).rejects.toThrow('.gitea/workflows/push.yml has no "on: workflow_call" trigger');
    await expect(
      expand(`on: push\njobs:\n  c:\n    uses: actions/checkout@v4\n`, files),
    ).rejects.toThrow('job "c": uses must name a workflow file');
    await expect(
      expand('on: push\njobs:\n  c/j: {runs-on: x, steps: [{run: a}]}\n', files),
    ).rejects.toThrow('job id "c/j" may not contain "/"');
  });

  it('stops a wide call tree at the job cap after reading a bounded number of files', async () => {
    const wide = (next: string, count: number) =>
      `on: workflow_call\njobs:\n${Array.from({ length: count }, (_, at) => `  c${at}:\n    uses: ./.gitea/workflows/${next}\n`).join('')}`;
    const { load, reads } = loaderOf({
      '.gitea/workflows/l1.yml': wide('l2.yml', 300),
      '.gitea/workflows/l2.yml': wide('l3.yml', 300),
      '.gitea/workflows/l3.yml':
        'on: workflow_call\njobs:\n  leaf: {runs-on: x, steps: [{run: a}]}\n',
    });
    const main = `on: push\njobs:\n${Array.from({ length: 300 }, (_, at) => `  c${at}:\n    uses: ./.gitea/workflows/l1.yml\n`).join('')}`;
    await expect(
      expandRun(parseWorkflow('main.yml', main), contexts, { load, parser }, ORIGIN),
    ).rejects.toThrow('more than the 256 jobs a run may have');
    expect(reads()).toBeLessThan(300);
  });
});
