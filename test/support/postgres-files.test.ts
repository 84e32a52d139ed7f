/**
 * The PostgreSQL run of the suite takes only the test files that can reach PostgreSQL
 * (scripts/postgres-test-files.ts). That is sound only while the test support is the one place
 * that picks the engine: were the server or the command line to read the variable themselves, a
 * test that never imports the support's database module could switch engine unseen.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGINE_DOOR, splitByEngine, testFiles } from '../../scripts/postgres-test-files.ts';

const root = resolve(import.meta.dirname, '../..');

/** Files below `dir` (relative to the repository) whose text names `needle`. */
function naming(dir: string, needle: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => readFileSync(path, 'utf8').includes(needle));
}

describe('the files the PostgreSQL run takes', () => {
  it('are chosen by the test support alone: the product never reads the engine variable', () => {
    expect([...naming('src', ENGINE_DOOR), ...naming('bin', ENGINE_DOOR)]).toEqual([]);
  });

  it('leave out every unit test: those beside the code open no PostgreSQL', () => {
    const unit = readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.test.ts'))
      .map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1));
    expect(unit.length).toBeGreaterThan(100);
    expect(splitByEngine(unit).both).toEqual([]);
  });

  it('include every file that opens a database, directly or through a world', () => {
    const { both, sqliteOnly } = splitByEngine(testFiles());
    expect(both).toContain('test/db/ci-attempts.test.ts');
    expect(both).toContain('test/authz/matrix.test.ts');
    expect(both).toContain('test/replicas/replicas.test.ts');
    expect(sqliteOnly).toContain('test/git/hook-patterns.test.ts');
    expect(both.length + sqliteOnly.length).toBe(testFiles().length);
  });

  it('include a file whose imports name the variable, even where only a script does', () => {
    const { both } = splitByEngine(['test/support/postgres-files.test.ts']);
    expect(both).toEqual(['test/support/postgres-files.test.ts']);
  });
});
