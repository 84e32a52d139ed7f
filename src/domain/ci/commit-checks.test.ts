import { describe, expect, it } from 'vitest';
import type { WorkflowRunStatus } from './ci.types.ts';
import { commitChecks } from './commit-checks.ts';

const run = (sha: string, workflowFile: string, number: number, status: WorkflowRunStatus) => ({
  sha,
  workflowFile,
  number,
  status,
});

describe('commit checks', () => {
  it('lets a newer run of a workflow replace its earlier verdict', () => {
    const checks = commitChecks([
      run('a', 'ci.yml', 1, 'FAILURE'),
      run('a', 'ci.yml', 3, 'SUCCESS'),
    ]);
    expect(checks.get('a')).toEqual({ status: 'SUCCESS', runNumber: 3 });
  });

  it('shows running before failed before passed, linking the run that decided it', () => {
    const checks = commitChecks([
      run('a', 'ci.yml', 1, 'SUCCESS'),
      run('a', 'lint.yml', 2, 'CANCELLED'),
      run('b', 'ci.yml', 4, 'FAILURE'),
      run('b', 'lint.yml', 5, 'PENDING'),
      run('c', 'ci.yml', 6, 'SUCCESS'),
    ]);
    expect(checks.get('a')).toEqual({ status: 'FAILURE', runNumber: 2 });
    expect(checks.get('b')).toEqual({ status: 'RUNNING', runNumber: 5 });
    expect(checks.get('c')).toEqual({ status: 'SUCCESS', runNumber: 6 });
    expect(checks.has('d')).toBe(false);
  });
});
