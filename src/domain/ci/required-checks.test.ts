import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CiTaskStatus } from './ci.types.ts';
import {
  allRequiredPassed,
  type CommitJob,
  checkContext,
  commitCheckResults,
  requiredChecks,
} from './required-checks.ts';

let nextJob = 1;
const job = (
  workflowName: string,
  jobName: string,
  status: CiTaskStatus,
  more: Partial<CommitJob> = {},
): CommitJob => ({
  runNumber: 1,
  workflowName,
  event: 'pull_request',
  jobId: nextJob++,
  jobName,
  status,
  ...more,
});
const verdict = (patterns: string[], jobs: CommitJob[]) =>
  allRequiredPassed(requiredChecks(patterns, commitCheckResults(jobs)));

describe('required checks', () => {
  it('name jobs as Gitea names their commit statuses', () => {
    expect(checkContext('CI', 'test (linux)', 'pull_request')).toBe(
      'CI / test (linux) (pull_request)',
    );
    const [check] = commitCheckResults([job('ci.yml', 'build', 'success', { event: 'push' })]);
    expect(check?.context).toBe('ci.yml / build (push)');
  });

  it('hold a merge until the required check succeeds, a missing one counting as pending', () => {
    const required = ['CI / test (pull_request)'];
    expect(verdict(required, [])).toBe(false);
    expect(verdict(required, [job('CI', 'lint', 'success')])).toBe(false);
    expect(verdict(required, [job('CI', 'test', 'running')])).toBe(false);
    expect(verdict(required, [job('CI', 'test', 'failure')])).toBe(false);
    expect(verdict(required, [job('CI', 'test', 'success')])).toBe(true);
    expect(verdict(required, [job('CI', 'test', 'skipped')])).toBe(true);
    expect(verdict(required, [job('CI', 'test', 'cancelled')])).toBe(false);
  });

  it('take the newest run of a context as its verdict', () => {
    const required = ['CI / test (*)'];
    const failedThenPassed = [
      job('CI', 'test', 'failure', { runNumber: 1 }),
      job('CI', 'test', 'success', { runNumber: 2 }),
    ];
    expect(verdict(required, failedThenPassed)).toBe(true);
    expect(verdict(required, [...failedThenPassed].reverse())).toBe(true);
    const passedThenFailed = [
      job('CI', 'test', 'success', { runNumber: 3 }),
      job('CI', 'test', 'failure', { runNumber: 4 }),
    ];
    expect(verdict(required, passedThenFailed)).toBe(false);
  });

  it('leave out runs of events that report no status', () => {
    const manual = job('CI', 'test', 'success', { event: 'workflow_dispatch' });
    expect(verdict(['CI / test (*)'], [manual])).toBe(false);
    expect(verdict([], [manual])).toBe(false);
  });

  it('with no patterns, wait for every check of the commit and for at least one', () => {
    expect(verdict([], [])).toBe(false);
    expect(verdict([], [job('CI', 'a', 'success'), job('Lint', 'b', 'success')])).toBe(true);
    expect(verdict([], [job('CI', 'a', 'success'), job('Lint', 'b', 'pending')])).toBe(false);
  });

  it('let a pattern that does not compile match nothing, holding the merge', () => {
    expect(verdict(['CI / [test'], [job('CI', '[test', 'success')])).toBe(false);
  });

  it('pass exactly when every pattern matched and all it matched succeeded (generated)', () => {
    const names = fc.constantFrom('CI', 'Lint', 'Deploy');
    const jobs = fc.array(
      fc.record({
        workflowName: names,
        jobName: fc.constantFrom('test', 'build'),
        status: fc.constantFrom<CiTaskStatus>('success', 'failure', 'running', 'skipped'),
        runNumber: fc.integer({ min: 1, max: 4 }),
      }),
      { maxLength: 8 },
    );
    const patterns = fc.array(
      fc.constantFrom(
        'CI / *',
        '* / test (*)',
        'Lint / build (pull_request)',
        '{CI,Deploy} / build*',
      ),
      {
        minLength: 1,
        maxLength: 3,
      },
    );
    fc.assert(
      fc.property(jobs, patterns, (generated, required) => {
        const all = generated.map((g, i) => ({ ...g, event: 'pull_request', jobId: i + 1 }));
        const results = commitCheckResults(all);
        const checks = requiredChecks(required, results);
        const expected = checks.every(
          (check) => check.matches.length > 0 && check.matches.every((m) => m.state === 'success'),
        );
        expect(allRequiredPassed(checks)).toBe(expected);
        for (const check of checks) {
          for (const match of check.matches) {
            const newest = all
              .filter((j) => checkContext(j.workflowName, j.jobName, j.event) === match.context)
              .sort((a, b) => b.runNumber - a.runNumber || b.jobId - a.jobId)[0];
            expect(match.jobId).toBe(newest?.jobId);
          }
        }
      }),
    );
  });
});
