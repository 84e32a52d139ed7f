import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Invalid } from '../domain/errors.ts';
import { checkRepoSegment, RepoPaths } from './repo-paths.ts';

const paths = new RepoPaths('/srv/kiln/repos');

describe('RepoPaths', () => {
  it('maps owner and name to <root>/<owner>/<name>.git, lowercased', () => {
    const repo = paths.resolve({ owner: 'Alice', name: 'My-Tools_2.0' });
    expect(repo.path).toBe('/srv/kiln/repos/alice/my-tools_2.0.git');
    expect(repo.key).toBe('alice/my-tools_2.0');
    expect(repo.ref).toEqual({ owner: 'Alice', name: 'My-Tools_2.0' });
  });

  it('resolves a relative root to an absolute one', () => {
    expect(new RepoPaths('data/repos').root).toBe(path.resolve('data/repos'));
  });

  it('keeps temp directories under the root, where no owner can be', () => {
    expect(paths.tempRoot).toBe('/srv/kiln/repos/.tmp');
    expect(() => paths.resolve({ owner: '.tmp', name: 'x' })).toThrow(Invalid);
  });

  const hostile = [
    '..',
    '.',
    '../etc',
    'a/../../b',
    '%2e%2e',
    '%2E%2E%2Fetc',
    'a/b',
    'a\\b',
    '..\\..\\windows',
    '-x',
    '--upload-pack=evil',
    '.hidden',
    'a..b',
    'nul\0byte',
    'tab\tname',
    'line\nbreak',
    'bell\x07',
    'del\x7f',
    'space name',
    'ünïcödé',
    '',
    'x'.repeat(101),
    '/etc/passwd',
    '~root',
  ];

  for (const name of hostile) {
    it(`refuses ${JSON.stringify(name)} as owner and as name`, () => {
      expect(() => paths.resolve({ owner: name, name: 'ok' })).toThrow(Invalid);
      expect(() => paths.resolve({ owner: 'ok', name })).toThrow(Invalid);
    });
  }

  it('accepts the longest allowed name', () => {
    expect(checkRepoSegment('a'.repeat(100), 'name')).toBe('a'.repeat(100));
  });

  it('remembers a handle per owner and name as given, keeping each spelling', () => {
    const first = paths.resolve({ owner: 'Alice', name: 'Tools' });
    expect(paths.resolve({ owner: 'Alice', name: 'Tools' })).toBe(first);
    const lower = paths.resolve({ owner: 'alice', name: 'tools' });
    expect(lower.path).toBe(first.path);
    expect(lower.ref).toEqual({ owner: 'alice', name: 'tools' });
    expect(first.ref).toEqual({ owner: 'Alice', name: 'Tools' });
  });

  it('still refuses hostile pairs once valid ones are remembered', () => {
    paths.resolve({ owner: 'a', name: 'b.c' });
    expect(() => paths.resolve({ owner: 'a/b', name: '.c' })).toThrow(Invalid);
    expect(() => paths.resolve({ owner: 'a', name: 'b.c/..' })).toThrow(Invalid);
  });

  it('refuses values that are not strings at all', () => {
    expect(() => paths.resolve({ owner: 42 as unknown as string, name: 'x' })).toThrow(Invalid);
  });
});
