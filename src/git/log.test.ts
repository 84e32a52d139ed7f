import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runGit } from './command.ts';
import { maintainRepository } from './housekeeping.ts';
import { log, logArgs } from './log.ts';
import { commitFiles, useTestRepo } from './test-support.ts';

const DEEP = 'src/a/b/c/d/e';

/** A history where every fifth commit touches the deep directory and the rest touch others. */
async function seed(gitDir: string, commits: number): Promise<string[]> {
  const deep: string[] = [];
  for (let i = 0; i < commits; i++) {
    const file = i % 5 === 0 ? `${DEEP}/hot.txt` : `src/x${i % 7}/y/file-${i % 11}.txt`;
    const sha = await commitFiles(gitDir, {
      branch: 'main',
      files: { [file]: `revision ${i}\n` },
      message: `change ${i}\n`,
      time: 1_700_000_000 + i * 60,
    });
    if (i % 5 === 0) deep.unshift(sha);
  }
  return deep;
}

/** Bloom filter statistics from a GIT_TRACE2_PERF file, when git consulted the filters. */
function bloomStatistics(trace: string): Record<string, number> | undefined {
  const line = trace.split('\n').find((entry) => entry.includes('statistics:{'));
  const json = line?.slice(line.indexOf('statistics:') + 'statistics:'.length).trim();
  return json ? (JSON.parse(json) as Record<string, number>) : undefined;
}

describe('log of a path', () => {
  const fixture = useTestRepo({ pool: true });

  it('lists the commits touching a deep path, newest first, a page at a time', async () => {
    const deep = await seed(fixture.repo.path, 30);
    const first = await log(fixture.pool, fixture.repo, 'main', { path: DEEP, limit: 4 });
    const second = await log(fixture.pool, fixture.repo, 'main', {
      path: DEEP,
      limit: 4,
      skip: 4,
    });
    expect([...first, ...second].map((commit) => commit.sha)).toEqual(deep);
  });

  it('lets git skip unrelated commits by the changed-path filters once housekeeping ran', async () => {
    const deep = await seed(fixture.repo.path, 30);
    await maintainRepository(fixture.repo);
    const trace = path.join(fixture.tmp.path, 'trace2.txt');
    const args = logArgs('main', { path: DEEP, limit: 31 }) ?? [];
    // The arguments log() passes, traced: git reports filter statistics only when it used them.
    const { stdout } = await runGit(['rev-list', ...args], {
      gitDir: fixture.repo.path,
      env: { GIT_TRACE2_PERF: trace },
    });
    expect(stdout.toString('utf8').trim().split('\n')).toEqual(deep);
    const statistics = bloomStatistics(await readFile(trace, 'utf8'));
    // 24 of the 30 commits leave the path alone; the root commit has no parent to compare with.
    expect(statistics?.definitely_not).toBeGreaterThanOrEqual(20);
  });
});
