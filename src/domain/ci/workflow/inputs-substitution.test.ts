import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { substituteInputs } from './inputs-substitution.ts';

const JOB = `on: workflow_call
jobs:
  build:
    runs-on: x
    if: \${{ inputs.fast }}
    steps:
      - run: echo "\${{ inputs.target }} for \${{ github.sha }}"
      - run: echo "\${{ inputs.target && github.ref }} \${{ steps.a.outputs.b }}"
      - run: echo "\${{ format('{0}-{1}', inputs.target, inputs.count) }}"
`;

describe('substituteInputs', () => {
  it('puts in what reads only inputs and leaves the rest to the runner', () => {
    const out = parse(substituteInputs(JOB, { target: 'linux', fast: true, count: 3 }));
    const steps = out.jobs.build.steps.map((step: { run: string }) => step.run);
    expect(out.jobs.build.if).toBe('true');
    expect(steps).toEqual([
      `echo "linux for \${{ github.sha }}"`,
      `echo "\${{ inputs.target && github.ref }} \${{ steps.a.outputs.b }}"`,
      'echo "linux-3"',
    ]);
  });

  it('never puts in a value that the runner would evaluate (generated)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (before, after) => {
        const target = `${before}\${{ secrets.DEPLOY_KEY }}${after}`;
        const out = parse(substituteInputs(JOB, { target, fast: false, count: 1 }));
        expect(out.jobs.build.steps[0].run).toBe(
          `echo "\${{ inputs.target }} for \${{ github.sha }}"`,
        );
      }),
      { numRuns: 50 },
    );
  });

  it('keeps any text an input holds as text in the document (generated)', () => {
    fc.assert(
      fc.property(fc.string(), (target) => {
        fc.pre(!target.includes('${{'));
        const out = parse(substituteInputs(JOB, { target, fast: false, count: 1 }));
        expect(out.jobs.build.steps[0].run).toBe(`echo "${target} for \${{ github.sha }}"`);
      }),
      { numRuns: 200 },
    );
  });
});
