import { describe, expect, it } from 'vitest';
import { Invalid } from '../domain/errors.ts';
import {
  branchRef,
  checkFullRef,
  checkRefPattern,
  checkRevision,
  isSha,
  isValidRefName,
  tagRef,
} from './ref-names.ts';

describe('reference names', () => {
  it('accepts ordinary branch and tag names', () => {
    expect(branchRef('main')).toBe('refs/heads/main');
    expect(branchRef('feature/x-1.2_y')).toBe('refs/heads/feature/x-1.2_y');
    expect(branchRef('renovate/npm-lodash-4.x')).toBe('refs/heads/renovate/npm-lodash-4.x');
    expect(tagRef('v1.0.0')).toBe('refs/tags/v1.0.0');
  });

  for (const bad of [
    '',
    '-x',
    'HEAD',
    'a..b',
    'a b',
    'a~1',
    'a^',
    'a:b',
    'a?',
    'a*',
    'a[',
    'a\\b',
    '@',
    'a@{1}',
    '/a',
    'a/',
    'a//b',
    'a.',
    '.a',
    'a/.b',
    'x.lock',
    'a\nb',
    'a\0b',
    'refs/heads/x',
  ]) {
    it(`refuses branch name ${JSON.stringify(bad)}`, () => {
      expect(() => branchRef(bad)).toThrow(Invalid);
    });
  }

  it('checks full names and patterns', () => {
    expect(checkFullRef('refs/pull/1/head')).toBe('refs/pull/1/head');
    expect(() => checkFullRef('main')).toThrow(Invalid);
    expect(() => checkFullRef('refs/heads/')).toThrow(Invalid);
    expect(checkRefPattern('refs/heads/')).toBe('refs/heads/');
    expect(() => checkRefPattern('heads/')).toThrow(Invalid);
    expect(isValidRefName('refs/heads/a')).toBe(true);
    expect(isValidRefName('main')).toBe(false);
    expect(isValidRefName('main', true)).toBe(true);
  });

  it('accepts shas, abbreviations and names as revisions, and no revision syntax', () => {
    expect(checkRevision('abcd')).toBe('abcd');
    expect(checkRevision('a'.repeat(40))).toBe('a'.repeat(40));
    expect(checkRevision('release/1.x')).toBe('release/1.x');
    expect(checkRevision('HEAD')).toBe('HEAD');
    for (const bad of [
      ':/secret',
      'main~1',
      'main^2',
      'HEAD@{1}',
      'a..b',
      '--all',
      '-n1',
      'main:path',
    ]) {
      expect(() => checkRevision(bad)).toThrow(Invalid);
    }
  });

  it('recognises full object ids only', () => {
    expect(isSha('0'.repeat(40))).toBe(true);
    expect(isSha('a'.repeat(64))).toBe(true);
    expect(isSha('A'.repeat(40))).toBe(false);
    expect(isSha('abc')).toBe(false);
  });
});
