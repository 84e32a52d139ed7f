/**
 * The conversation page of a pull request with 200 reviews and 2,000 line comments against the
 * same page of a pull with none (target: server time, medians, ≤ 2×). Both pulls are in one
 * repository made with `git fast-import`; the reviews and comments are written straight to the
 * tables (as the review API stores them), since making 2,000 anchored comments through the API
 * would measure seeding, not the page.
 *
 *   node bench/pull-page-reviews.ts [--iterations 40] [--reviews 200] [--comments 2000]
 *
 * Requests are sequential and the two pages alternate, so both see the same machine.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { newId } from '../src/lib/ids.ts';
import { giveUpAfter } from './_give-up.ts';
import { startBenchKiln } from './_kiln.ts';
import { seedBenchPerson } from './_seed.ts';
import { median } from './_stats.ts';

const { values: args } = parseArgs({
  options: {
    iterations: { type: 'string', default: '40' },
    reviews: { type: 'string', default: '200' },
    comments: { type: 'string', default: '2000' },
  },
});
const ITERATIONS = Number(args.iterations);
const REVIEWS = Number(args.reviews);
const COMMENTS = Number(args.comments);
const LINES = 400;
const root = mkdtempSync(join(tmpdir(), 'kiln-bench-reviews-'));
const done = giveUpAfter('pull-page-reviews', 10, root);

function blob(text: string): string {
  return `data ${Buffer.byteLength(text)}\n${text}\n`;
}

/** main with one file; `quiet` and `busy` each change every line of it. */
function stream(): string {
  const base = Array.from({ length: LINES }, (_, i) => `line ${i + 1}`).join('\n');
  const changed = (tag: string) =>
    Array.from({ length: LINES }, (_, i) => `line ${i + 1} ${tag}`).join('\n');
  const commit = (ref: string, mark: number, text: string, from?: number) =>
    `commit ${ref}\nmark :${mark}\ncommitter Bench <bench@example.test> ${1_700_000_000 + mark} +0000\n${blob(`${ref}\n`)}${from ? `from :${from}\n` : ''}M 100644 inline file.txt\n${blob(`${text}\n`)}\n`;
  return (
    commit('refs/heads/main', 1, base) +
    commit('refs/heads/quiet', 2, changed('q'), 1) +
    commit('refs/heads/busy', 3, changed('b'), 1)
  );
}

async function fastImport(gitDir: string, text: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn('git', ['--git-dir', gitDir, 'fast-import', '--quiet'], {
      env: { PATH: process.env.PATH, HOME: root, GIT_CONFIG_NOSYSTEM: '1' },
      stdio: ['pipe', 'ignore', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`fast-import ${code}`))));
    child.stdin.end(text);
  });
}

async function timedFetch(url: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url);
  const body = await response.text();
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${body.slice(0, 200)}`);
  return performance.now() - started;
}

async function main(): Promise<void> {
  const { app, server, url } = await startBenchKiln({
    dataDir: root,
    databaseUrl: undefined,
    env: { SERVICE_PROTECT_ENABLED: 'false' },
  });
  try {
    const { user } = await seedBenchPerson(app.services);
    const { repo } = await app.services.repos.create(user, { name: 'reviewed' });
    await fastImport(app.services.repos.handle(repo).path, stream());
    const open = (head: string) =>
      app.services.pulls.create(user, 'bench', 'reviewed', { title: head, head, base: 'main' });
    const quiet = (await open('quiet')).pull;
    const busy = (await open('busy')).pull;

    const db = app.database.db;
    const now = Date.now();
    const reviewIds: string[] = [];
    for (let r = 0; r < REVIEWS; r++) {
      const id = newId();
      reviewIds.push(id);
      await db
        .insertInto('pull_reviews')
        .values({
          id,
          pull_id: busy.id,
          repo_id: repo.id,
          reviewer_id: user.id,
          state: r % 3 === 0 ? 'APPROVED' : 'COMMENT',
          body: `Review ${r}: looks **fine**, see \`file.txt\`.`,
          commit_id: busy.headSha,
          created_at: now + r * 10,
          updated_at: now + r * 10,
          submitted_at: now + r * 10,
        })
        .execute();
    }
    for (let c = 0; c < COMMENTS; c++) {
      const line = (c % LINES) + 1;
      await db
        .insertInto('review_comments')
        .values({
          id: newId(),
          pull_id: busy.id,
          repo_id: repo.id,
          author_id: user.id,
          body: `Comment ${c} on line ${line}: *why*?`,
          path: 'file.txt',
          line,
          old_line: null,
          side: 'RIGHT',
          commit_id: busy.headSha,
          original_commit_id: busy.headSha,
          diff_hunk: `@@ -${line},1 +${line},1 @@\n-line ${line}\n+line ${line} b`,
          in_reply_to_id: null,
          created_at: now + c,
          updated_at: now + c,
          review_id: reviewIds[c % REVIEWS] ?? null,
        })
        .execute();
    }

    const pages = {
      none: `${url}/repos/bench/reviewed/pulls/${quiet.number}`,
      many: `${url}/repos/bench/reviewed/pulls/${busy.number}`,
    };
    for (let i = 0; i < 5; i++) {
      await timedFetch(pages.none);
      await timedFetch(pages.many);
    }
    const none: number[] = [];
    const many: number[] = [];
    for (let i = 0; i < ITERATIONS; i++) {
      none.push(await timedFetch(pages.none));
      many.push(await timedFetch(pages.many));
    }
    const ratio = median(many) / median(none);
    process.stdout.write(
      [
        '',
        `pull conversation page (${ITERATIONS} sequential requests each)`,
        `  no reviews                         median ${median(none).toFixed(1)} ms`,
        `  ${REVIEWS} reviews, ${COMMENTS} comments        median ${median(many).toFixed(1)} ms`,
        `  ratio                              ${ratio.toFixed(2)}  (target <= 2.00)`,
        '',
      ].join('\n'),
    );
    process.stdout.write(
      `${JSON.stringify({
        figures: [
          {
            name: `pull page with ${REVIEWS} reviews and ${COMMENTS} comments ÷ with none, medians`,
            target: '≤ 2',
            measured: Number(ratio.toFixed(2)),
            unit: 'ratio',
            pass: ratio <= 2,
          },
        ],
      })}\n`,
    );
    process.exitCode = ratio <= 2 ? 0 : 1;
  } finally {
    await server.close();
    await app.close();
    rmSync(root, { recursive: true, force: true });
    done();
  }
}

await main();
