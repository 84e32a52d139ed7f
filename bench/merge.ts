/**
 * Merge figure: merging a pull request through Kiln's API on a repository of ~50,000 files and
 * ~10,000 commits, against running `git merge-tree --write-tree` alone on the same two commits
 * (target: Kiln ≤ 2× git). Kiln's merge is that same merge-tree, the merge commit written
 * in-process, a compare-and-swap through a long-lived update-ref and the database writes, so the
 * ratio shows what Kiln adds.
 *
 *   node bench/merge.ts [--files 50000] [--commits 10000] [--runs 7]
 *
 * Each run opens a fresh pull (a topic branch off a recent commit, while the base has moved on),
 * times merge-tree alone on its two tips, then merges it through the API; the two are timed
 * back to back so both see the same machine. The baseline's merge-tree runs at the niceness Kiln
 * gives its own git (`_nice-git.ts`): at git's default priority it would get more of a machine
 * busy with other work than Kiln's git is given. Everything lives in a temp directory removed at
 * the end; a deadline stops a stuck run.
 */
import { execFile, spawn } from 'node:child_process';
import { parseArgs, promisify } from 'node:util';
import { startTestServer } from '../test/support/server.ts';
import { giveUpAfter } from './_give-up.ts';
import { niceGit } from './_nice-git.ts';
import { median } from './_stats.ts';

const { values: args } = parseArgs({
  options: {
    files: { type: 'string', default: '50000' },
    commits: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '7' },
  },
});
const FILES = Number(args.files);
const COMMITS = Number(args.commits);
const RUNS = Number(args.runs);
const run = promisify(execFile);
giveUpAfter('merge', 15);

function fastImport(gitDir: string, write: (out: (text: string) => void) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['--git-dir', gitDir, 'fast-import', '--quiet'], {
      env: { PATH: process.env.PATH, LC_ALL: 'C', GIT_CONFIG_NOSYSTEM: '1', HOME: '/nonexistent' },
      stdio: ['pipe', 'ignore', 'inherit'],
    });
    const chunks: string[] = [];
    write((text) => chunks.push(text));
    child.stdin.end(chunks.join(''));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`fast-import exited ${code}`)),
    );
  });
}

function data(text: string): string {
  return `data ${Buffer.byteLength(text)}\n${text}\n`;
}

const ident = (n: number) => `Bench <bench@example.test> ${1_700_000_000 + n} +0000`;

/** One root commit with FILES files, then COMMITS-1 commits each changing one of them. */
function history(out: (text: string) => void): void {
  out(`commit refs/heads/main\nmark :1\ncommitter ${ident(0)}\n${data('initial')}`);
  for (let i = 0; i < FILES; i++) {
    out(`M 100644 inline dir${i % 200}/file${i}.txt\n${data(`file ${i}\nline two of ${i}\n`)}`);
  }
  out('\n');
  for (let c = 1; c < COMMITS; c++) {
    const file = (c * 7919) % FILES;
    out(
      `commit refs/heads/main\nmark :${c + 1}\ncommitter ${ident(c)}\n${data(`change ${c}`)}from :${c}\n`,
    );
    out(
      `M 100644 inline dir${file % 200}/file${file}.txt\n${data(`file ${file}\nchanged by ${c}\n`)}\n`,
    );
  }
}

async function git(gitDir: string, argv: string[]): Promise<string> {
  const { stdout } = await run('git', ['--git-dir', gitDir, ...argv], { maxBuffer: 1 << 26 });
  return stdout.trim();
}

const kiln = await startTestServer();
const baseline = niceGit({ ...process.env });
try {
  const { user, token } = await kiln.make.userWithToken();
  const { repo } = await kiln.app.services.repos.create(user, { name: 'big' });
  const gitDir = kiln.app.services.repos.handle(repo).path;
  const setupStart = performance.now();
  await fastImport(gitDir, history);
  console.error(
    `merge: ${FILES} files, ${COMMITS} commits imported in ${((performance.now() - setupStart) / 1000).toFixed(1)} s`,
  );

  const api = (path: string, body: unknown) =>
    fetch(`${kiln.url}/api/v1/repos/${user.handle}/big${path}`, {
      method: 'POST',
      headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  const ratios: number[] = [];
  const gitMs: number[] = [];
  const kilnMs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const fork = await git(gitDir, ['rev-parse', 'main~3']);
    const tip = await git(gitDir, ['rev-parse', 'main']);
    await fastImport(gitDir, (out) => {
      out(
        `commit refs/heads/topic${i}\ncommitter ${ident(COMMITS + 2 * i)}\n${data(`topic ${i}`)}from ${fork}\n`,
      );
      out(`M 100644 inline topic/change${i}.txt\n${data(`topic ${i}\n`)}\n`);
      out(
        `commit refs/heads/main\ncommitter ${ident(COMMITS + 2 * i + 1)}\n${data(`base ${i}`)}from ${tip}\n`,
      );
      out(`M 100644 inline base/change${i}.txt\n${data(`base ${i}\n`)}\n`);
    });
    const created = await api('/pulls', { title: `topic ${i}`, head: `topic${i}`, base: 'main' });
    if (created.status !== 201)
      throw new Error(`pull not created: ${created.status} ${await created.text()}`);
    const { number } = (await created.json()) as { number: number };

    const head = await git(gitDir, ['rev-parse', `topic${i}`]);
    const base = await git(gitDir, ['rev-parse', 'main']);
    const gitTime = await baseline.time([
      '--git-dir',
      gitDir,
      'merge-tree',
      '--write-tree',
      base,
      head,
    ]);

    const mergeStart = performance.now();
    const merged = await api(`/pulls/${number}/merge`, { Do: 'merge' });
    const kilnTime = performance.now() - mergeStart;
    if (merged.status !== 200)
      throw new Error(`merge failed: ${merged.status} ${await merged.text()}`);
    gitMs.push(gitTime);
    kilnMs.push(kilnTime);
    ratios.push(kilnTime / gitTime);
    console.error(
      `merge: run ${i + 1}: git merge-tree ${gitTime.toFixed(1)} ms, Kiln merge ${kilnTime.toFixed(1)} ms`,
    );
  }
  const ratio = median(ratios);
  console.error(
    `merge: median git ${median(gitMs).toFixed(1)} ms, Kiln ${median(kilnMs).toFixed(1)} ms, ratio ${ratio.toFixed(2)}`,
  );
  console.log(
    JSON.stringify({
      figures: [
        {
          name: `Merge via the API ÷ git merge-tree alone (${FILES} files, ${COMMITS} commits), median of ${RUNS}`,
          target: '≤ 2',
          measured: Number(ratio.toFixed(2)),
          unit: 'ratio',
          pass: ratio <= 2,
        },
      ],
    }),
  );
} finally {
  await baseline.close();
  await kiln.close();
}
