import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { matchesPatterns } from './glob-filter.ts';
import { aggregateStatus, type GatedJob, resolveBlocked } from './job-status.ts';
import { expandMatrix, MatrixError } from './matrix.ts';
import { matchesPull, matchesPush, readTriggers } from './triggers.ts';
import { parseWorkflow, planJobs, WorkflowError } from './workflow-parse.ts';

describe('filter patterns', () => {
  it.each([
    ['main', 'main', true],
    ['releases/*', 'releases/v1', true],
    ['releases/*', 'releases/v1/hotfix', false],
    ['releases/**', 'releases/v1/hotfix', true],
    ['**.js', 'src/deep/app.js', true],
    ['*.js', 'src/app.js', false],
    ['v?', 'v1', true],
    ['v?', 'v10', false],
    ['v[12]', 'v2', true],
    ['v[12]', 'v3', false],
    ['v[0-9]', 'v7', true],
    ['ab+c', 'abbbc', true],
    ['ab+c', 'ac', false],
    ['docs/**/*.md', 'docs/a.md', true],
    ['a.b', 'axb', false],
  ])('%s against %s is %s', (pattern, value, expected) => {
    expect(matchesPatterns([pattern], value)).toBe(expected);
  });

  it('reads a list in order, the last matching pattern deciding', () => {
    const list = ['releases/**', '!releases/**-alpha', 'releases/keep-alpha'];
    expect(matchesPatterns(list, 'releases/v1')).toBe(true);
    expect(matchesPatterns(list, 'releases/v1-alpha')).toBe(false);
    expect(matchesPatterns(list, 'releases/keep-alpha')).toBe(true);
  });

  it('never lets * cross a slash, while ** always matches', () => {
    const segment = fc.stringMatching(/^[a-z0-9._-]{1,8}$/);
    fc.assert(
      fc.property(fc.array(segment, { minLength: 2, maxLength: 5 }), (parts) => {
        const path = parts.join('/');
        expect(matchesPatterns(['*'], path)).toBe(false);
        expect(matchesPatterns(['**'], path)).toBe(true);
        expect(matchesPatterns([`${parts[0]}/**`], path)).toBe(true);
      }),
    );
  });
});

describe('push triggers', () => {
  const on = (yaml: string) => readTriggers(parse(yaml));
  const push = (ref: string, changedPaths: string[] = ['README.md']) => ({ ref, changedPaths });

  it('runs on every push when push has no filters', () => {
    expect(matchesPush(on('push'), push('refs/heads/x'))).toBe(true);
    expect(matchesPush(on('[push, pull_request]'), push('refs/tags/v1'))).toBe(true);
    expect(matchesPush(on('pull_request'), push('refs/heads/x'))).toBe(false);
  });

  it('applies branch filters, ignores and tag filters; either of branch and tag suffices', () => {
    expect(matchesPush(on('push: {branches: [main]}'), push('refs/heads/main'))).toBe(true);
    expect(matchesPush(on('push: {branches: [main]}'), push('refs/heads/dev'))).toBe(false);
    expect(matchesPush(on('push: {branches: [main]}'), push('refs/tags/v1'))).toBe(false);
    expect(matchesPush(on("push: {branches-ignore: ['wip/**']}"), push('refs/heads/wip/a/b'))).toBe(
      false,
    );
    expect(matchesPush(on("push: {tags: ['v*']}"), push('refs/tags/v1'))).toBe(true);
    expect(matchesPush(on("push: {tags: ['v*']}"), push('refs/heads/main'))).toBe(false);
    const both = on("push: {branches: [main], tags: ['v*']}");
    expect(matchesPush(both, push('refs/heads/main'))).toBe(true);
    expect(matchesPush(both, push('refs/tags/v2'))).toBe(true);
    expect(matchesPush(both, push('refs/heads/dev'))).toBe(false);
  });

  it('applies path filters to the changed files', () => {
    const paths = on("push: {paths: ['src/**', '!src/**/*.md']}");
    expect(matchesPush(paths, push('refs/heads/main', ['src/a/b.ts']))).toBe(true);
    expect(matchesPush(paths, push('refs/heads/main', ['src/a/b.md', 'docs/x']))).toBe(false);
    const ignored = on("push: {paths-ignore: ['docs/**']}");
    expect(matchesPush(ignored, push('refs/heads/main', ['docs/a.md']))).toBe(false);
    expect(matchesPush(ignored, push('refs/heads/main', ['docs/a.md', 'src/x.ts']))).toBe(true);
  });

  it('filters pull requests by type, base branch and paths', () => {
    const pull = on('pull_request: {branches: [main], types: [opened, closed]}');
    const facts = { action: 'opened' as const, baseBranch: 'main', changedPaths: ['a'] };
    expect(matchesPull(pull, facts)).toBe(true);
    expect(matchesPull(pull, { ...facts, action: 'synchronize' })).toBe(false);
    expect(matchesPull(pull, { ...facts, baseBranch: 'dev' })).toBe(false);
    expect(matchesPull(on('pull_request'), { ...facts, action: 'closed' })).toBe(false);
  });
});

describe('matrix', () => {
  it('takes the product, then exclude, then include', () => {
    const combinations = expandMatrix({
      node: [18, 20],
      os: ['linux', 'mac'],
      exclude: [{ node: 18, os: 'mac' }],
      include: [
        { os: 'linux', experimental: true },
        { node: 22, os: 'bsd' },
        { node: 20, os: 'mac', node2: 1 },
      ],
    });
    expect(combinations).toEqual([
      { node: 18, os: 'linux', experimental: true },
      { node: 20, os: 'linux', experimental: true },
      { node: 20, os: 'mac', node2: 1 },
      { node: 22, os: 'bsd' },
    ]);
  });

  it('never overwrites an original value with an include', () => {
    expect(expandMatrix({ a: [1], include: [{ a: 2, b: 3 }] })).toEqual([{ a: 1 }, { a: 2, b: 3 }]);
  });

  it('refuses an exclude naming an unknown key', () => {
    expect(() => expandMatrix({ a: [1], exclude: [{ b: 1 }] })).toThrow(MatrixError);
  });
});

const WORKFLOW = `name: CI
on: [push]
env: {A: 1}
x-unknown: kept
jobs:
  build:
    strategy:
      matrix:
        node: [18, 20]
        os: [linux, mac]
    runs-on: \${{ matrix.os }}
    x-custom: survives
    steps:
      - run: echo \${{ matrix.node }}
      - name: Second
        uses: actions/checkout@v4
  deploy:
    needs: build
    if: always()
    runs-on: ubuntu-latest
    steps:
      - run: echo deploy
`;

describe('planning jobs', () => {
  it('splits a matrix into named single-job documents without needs', () => {
    const jobs = planJobs(parseWorkflow('ci.yml', WORKFLOW), { github: {} });
    expect(jobs.map((job) => job.name)).toEqual([
      'build (18, linux)',
      'build (18, mac)',
      'build (20, linux)',
      'build (20, mac)',
      'deploy',
    ]);
    expect(jobs[1]?.runsOn).toEqual(['mac']);
    expect(jobs[0]?.stepNames).toEqual([`echo \${{ matrix.node }}`, 'Second']);
    const payload = parse(jobs[1]?.payload ?? '') as Record<string, unknown>;
    expect(Object.keys(payload)).toEqual(['name', 'on', 'env', 'x-unknown', 'jobs']);
    const job = (payload.jobs as Record<string, Record<string, unknown>>).build;
    expect(job?.['x-custom']).toBe('survives');
    expect(job?.strategy).toEqual({ matrix: { node: [18], os: ['mac'] } });
    const deploy = parse(jobs[4]?.payload ?? '') as {
      jobs: Record<string, Record<string, unknown>>;
    };
    expect(Object.keys(deploy.jobs)).toEqual(['deploy']);
    expect(deploy.jobs.deploy?.needs).toBeUndefined();
    expect(jobs[4]).toMatchObject({ needs: ['build'], hasIf: true });
  });

  it('names the line of a YAML error and of a job without runs-on', () => {
    expect(() => parseWorkflow('x.yml', 'on: push\njobs:\n  a: [\n')).toThrow(/line \d+/);
    const error = (() => {
      try {
        parseWorkflow('x.yml', 'on: push\njobs:\n  a:\n    steps: []\n');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(WorkflowError);
    expect((error as WorkflowError).line).toBe(3);
    expect(() => parseWorkflow('x.yml', 'jobs: {a: {runs-on: x}}')).toThrow(/no "on:"/);
  });
});

describe('job statuses', () => {
  const job = (key: string, status: GatedJob['status'], needs: string[] = [], hasIf = false) => ({
    key,
    jobId: key.split('#')[0] as string,
    needs,
    hasIf,
    status,
  });

  it('unblocks on success, skips on failure unless the job has an if, and cascades', () => {
    const changed = resolveBlocked([
      job('a', 'success'),
      job('b', 'failure'),
      job('c', 'blocked', ['a']),
      job('d', 'blocked', ['b']),
      job('e', 'blocked', ['b'], true),
      job('f', 'blocked', ['d']),
      job('g', 'blocked', ['c']),
    ]);
    expect(Object.fromEntries(changed)).toEqual({
      c: 'pending',
      d: 'skipped',
      e: 'pending',
      f: 'skipped',
    });
  });

  it('aggregates as Gitea does', () => {
    expect(aggregateStatus(['skipped', 'skipped'])).toBe('skipped');
    expect(aggregateStatus(['success', 'skipped'])).toBe('success');
    expect(aggregateStatus(['failure', 'cancelled'])).toBe('cancelled');
    expect(aggregateStatus(['failure', 'running'])).toBe('failure');
    expect(aggregateStatus(['success', 'running', 'pending'])).toBe('running');
    expect(aggregateStatus(['success', 'blocked', 'pending'])).toBe('pending');
  });
});
