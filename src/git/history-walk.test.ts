import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runGit } from './command.ts';
import { canWalkHere, walkHistory } from './history-walk.ts';
import { log } from './log.ts';
import { commitFiles, TEST_IDENT, useTestRepo } from './test-support.ts';

/** A generated history: each commit names earlier commits as parents and has a date. */
type Shape = { parents: number[]; date: number }[];

/** Up to 24 commits; dates from a narrow range, so ties and clock skew are common. */
const shapes = fc
  .array(
    fc.record({
      picks: fc.array(fc.nat(), { maxLength: 3 }),
      date: fc.integer({ min: 0, max: 6 }),
    }),
    { minLength: 1, maxLength: 24 },
  )
  .map(
    (rows): Shape =>
      rows.map((row, index) => ({
        // The first commit is a root; later ones pick distinct earlier parents (at least one).
        parents:
          index === 0
            ? []
            : [
                ...new Set([
                  index - 1 - ((row.picks[0] ?? 0) % index),
                  ...row.picks.map((p) => p % index),
                ]),
              ],
        date: row.date,
      })),
  );

/** One fast-import stream for the whole shape; the branch ends at the last commit. */
function stream(shape: Shape): string {
  return shape
    .map((commit, index) => {
      const time = 1_700_000_000 + commit.date * 60;
      const [first, ...merges] = commit.parents;
      const body = `commit ${index}\n`;
      return [
        'commit refs/heads/main',
        `mark :${index + 1}`,
        `author ${TEST_IDENT} ${time} +0000`,
        `committer ${TEST_IDENT} ${time} +0000`,
        `data ${body.length}`,
        body,
        ...(first === undefined ? [] : [`from :${first + 1}`]),
        ...merges.map((merge) => `merge :${merge + 1}`),
        `M 100644 inline file-${index % 3}.txt`,
        `data ${body.length}`,
        body,
      ].join('\n');
    })
    .join('\n');
}

async function revList(gitDir: string, skip: number, limit: number): Promise<string[]> {
  const { stdout } = await runGit(
    ['rev-list', `--skip=${skip}`, `--max-count=${limit}`, 'main', '--'],
    { gitDir },
  );
  return stdout.toString('utf8').split('\n').filter(Boolean);
}

describe('walkHistory', () => {
  const fixture = useTestRepo({ pool: true });

  it('lists what git rev-list lists, in its order, on generated histories', async () => {
    let round = 0;
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(
        shapes,
        fc.nat(6),
        fc.integer({ min: 1, max: 30 }),
        async (shape, skip, limit) => {
          // A fresh repository per case: the ref is rewritten from scratch.
          const gitDir = path.join(fixture.tmp.path, `case-${round++}.git`);
          await runGit(['init', '--bare', '--quiet', gitDir]);
          await runGit(['fast-import', '--quiet', '--force'], {
            gitDir,
            input: Buffer.from(`${stream(shape)}\n`),
          });
          const repo = { ...fixture.repo, path: gitDir, key: gitDir };
          const expected = await revList(gitDir, skip, limit);
          const walked = await walkHistory(fixture.pool, repo, 'main', { skip, limit });
          if (walked) {
            answered++;
            expect(walked.map((commit) => commit.sha)).toEqual(expected);
          }
          // Walked or handed to rev-list, log lists the same.
          const logged = await log(fixture.pool, repo, 'main', { skip, limit });
          expect(logged.map((commit) => commit.sha)).toEqual(expected);
        },
      ),
      { numRuns: 25 },
    );
    // Most generated histories have few merges and are walked, not handed back.
    expect(answered).toBeGreaterThan(12);
  });

  it('hands a history full of merges back to rev-list', async () => {
    const shape: Shape = [{ parents: [], date: 0 }];
    for (let i = 1; i < 60; i += 2) {
      // A one-commit branch off the previous merge, merged back at once.
      shape.push({ parents: [i - 1], date: i });
      shape.push({ parents: [i - 1, i], date: i + 1 });
    }
    await runGit(['fast-import', '--quiet', '--force'], {
      gitDir: fixture.repo.path,
      input: Buffer.from(`${stream(shape)}\n`),
    });
    const page = { skip: 0, limit: 31 };
    expect(await walkHistory(fixture.pool, fixture.repo, 'main', page)).toBeUndefined();
    const logged = await log(fixture.pool, fixture.repo, 'main', page);
    expect(logged.map((commit) => commit.sha)).toEqual(await revList(fixture.repo.path, 0, 31));
  });

  it('reads the same commits as before, message and parents included, through log', async () => {
    for (let i = 0; i < 5; i++) {
      await commitFiles(fixture.repo.path, {
        branch: 'main',
        files: { 'a.txt': `${i}\n` },
        message: `change ${i}\n`,
        time: 1_700_000_000 + i,
      });
    }
    const page = await log(fixture.pool, fixture.repo, 'main', { skip: 1, limit: 2 });
    expect(page.map((commit) => commit.message)).toEqual(['change 3\n', 'change 2\n']);
    expect(page[0]?.parents).toEqual([page[1]?.sha]);
  });

  it('leaves shallow and grafted repositories to git', async () => {
    expect(await canWalkHere(fixture.repo)).toBe(true);
    await writeFile(path.join(fixture.repo.path, 'shallow'), '');
    expect(await canWalkHere(fixture.repo)).toBe(false);
    await runGit(['init', '--bare', '--quiet', `${fixture.repo.path}-2`]);
    const grafted = { ...fixture.repo, path: `${fixture.repo.path}-2` };
    await mkdir(path.join(grafted.path, 'info'), { recursive: true });
    await writeFile(path.join(grafted.path, 'info', 'grafts'), '');
    expect(await canWalkHere(grafted)).toBe(false);
  });
});
