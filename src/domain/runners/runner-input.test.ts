import { describe, expect, it } from 'vitest';
import { Invalid } from '../errors.ts';
import {
  capabilityFlags,
  labelNames,
  parseStringArray,
  runnerName,
  runnerVersion,
} from './runner-input.ts';

describe('runner input', () => {
  it('trims names, cuts them to 255 characters and refuses empty ones', () => {
    expect(runnerName('  box  ')).toBe('box');
    expect(runnerName('x'.repeat(300))).toHaveLength(255);
    expect(() => runnerName('   ')).toThrow(Invalid);
  });

  it('keeps label names only, once each, in order', () => {
    expect(labelNames(['ubuntu-latest:docker://node:20', ' gpu ', 'ubuntu-latest', ''])).toEqual([
      'ubuntu-latest',
      'gpu',
    ]);
  });

  it('refuses more labels, or longer ones, than any runner sends', () => {
    expect(() => labelNames(Array.from({ length: 101 }, (_, i) => `l${i}`))).toThrow(Invalid);
    expect(() => labelNames(['x'.repeat(256)])).toThrow(Invalid);
  });

  it('bounds capabilities without failing', () => {
    expect(capabilityFlags(['cancelling', 'cancelling', 'x'.repeat(65), ''])).toEqual([
      'cancelling',
    ]);
    expect(capabilityFlags(Array.from({ length: 50 }, (_, i) => `c${i}`))).toHaveLength(32);
  });

  it('cuts the version and reads stored arrays defensively', () => {
    expect(runnerVersion(` ${'v'.repeat(100)} `)).toHaveLength(64);
    expect(parseStringArray('["a",1,"b"]')).toEqual(['a', 'b']);
    expect(parseStringArray('{"a":1}')).toEqual([]);
    expect(parseStringArray('not json')).toEqual([]);
  });
});
