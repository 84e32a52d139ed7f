import { describe, expect, it } from 'vitest';
import { parseWorkflow, planJobs, WorkflowError } from './workflow-parse.ts';

/** A workflow whose job `deploy` has the given `concurrency` value (YAML flow or scalar). */
const withJobConcurrency = (value: string) =>
  `on: push\njobs:\n  deploy:\n    runs-on: x\n    strategy: {matrix: {env: [staging, prod]}}\n    concurrency: ${value}\n    steps: [{run: ./go}]\n`;

const plan = (value: string, contexts: Record<string, unknown> = {}) =>
  planJobs(parseWorkflow('d.yml', withJobConcurrency(value)), {
    github: { ref_name: 'main', event_name: 'push' },
    vars: { REGION: 'eu' },
    inputs: {},
    ...contexts,
  }).map((job) => job.concurrency);

describe('job-level concurrency', () => {
  it('evaluates the group per matrix combination over github, matrix and vars', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a workflow expression
    const group = "'${{ github.ref_name }}-${{ matrix.env }}-${{ vars.REGION }}'";
    expect(plan(group)).toEqual([
      { group: 'main-staging-eu', cancelInProgress: false },
      { group: 'main-prod-eu', cancelInProgress: false },
    ]);
  });

  it('reads cancel-in-progress as a boolean or an expression', () => {
    expect(plan('{group: g, cancel-in-progress: true}')[0]).toEqual({
      group: 'g',
      cancelInProgress: true,
    });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a workflow expression
    const expression = '{group: g, cancel-in-progress: "${{ matrix.env == \'prod\' }}"}';
    expect(plan(expression).map((job) => job?.cancelInProgress)).toEqual([false, true]);
  });

  it('names groups without regard to case, as GitHub does', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a workflow expression
    const group = "'Deploy-${{ matrix.env }}'";
    expect(plan(group).map((job) => job?.group)).toEqual(['deploy-staging', 'deploy-prod']);
  });

  it('leaves a job without one, or with an empty group, outside any group', () => {
    expect(plan("''")).toEqual([undefined, undefined]);
  });

  it.each([
    ['{cancel-in-progress: true}', /job "deploy": "concurrency" needs a "group"/],
    ['[a, b]', /job "deploy": "concurrency" needs a "group"/],
    ['{group: g, queue: max}', /has unknown key "queue"/],
    ['{group: g, cancel-in-progress: [1]}', /"cancel-in-progress" must be a boolean/],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a workflow expression
    ["'${{ secrets.TOKEN }}'", /may only use github, inputs, matrix and vars/],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a workflow expression
    ["'${{ github.ref_name == }}'", /job "deploy": concurrency:/],
  ])('refuses %s as an error of the file', (value, message) => {
    expect(() => plan(value)).toThrow(WorkflowError);
    expect(() => plan(value)).toThrow(message);
  });
});
