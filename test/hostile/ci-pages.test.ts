/**
 * Pages of hostile sizes stay bounded, and what they leave out stays reachable. A job whose log
 * holds 10,000 rows of 64 KiB (stored as a runner's UpdateLog would store them) gets pages of at
 * most about a megabyte that link to each other, and its raw log streams every byte as stored. A
 * commit whose diff is 16 MiB, made and pushed with real git (many files, lines of hundreds of
 * kilobytes, one huge file), gets a bounded page whose "load diff" links lead to bounded pages of
 * one file, and a raw `.diff` equal to what `git diff` prints.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogRow } from '../../src/domain/ci/logs/task-logs.ts';
import type { User } from '../../src/domain/users/user.types.ts';
import type { Task } from '../../src/gen/runner/v1/messages_pb.js';
import { ReplayRunner } from '../actions/replay-runner.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { makeRepo } from '../web/fixtures.ts';

const ROWS = 10_000;
const ROW_BYTES = 64 * 1024;
/** Every page here is its frame plus at most 1 MiB of content. */
const PAGE_BOUND = 1024 * 1024 + 128 * 1024;

/** Rows of exactly 64 KiB of UTF-8 in four shapes: ASCII, markup, multi-byte, colours. */
function rowShapes(): string[] {
  const fill = (unit: string) => {
    const bytes = Buffer.byteLength(unit);
    return unit.repeat(Math.floor(ROW_BYTES / bytes)) + 'x'.repeat(ROW_BYTES % bytes);
  };
  return [fill('a'), fill('<&>"'), fill('é€😀'), fill('\u001b[31mred\u001b[0m ')];
}

let kiln: TestServer;
let git: GitClient;
let owner: User;
let token: string;

beforeAll(async () => {
  kiln = await startTestServer({ SERVICE_PROTECT_ENABLED: 'false' });
  git = await GitClient.create();
  ({ user: owner, token } = await kiln.make.userWithToken());
}, 60_000);
afterAll(async () => {
  await git?.dispose();
  await kiln?.close();
});

async function push(name: string, dir: string): Promise<void> {
  const url = repoUrl(kiln.url, owner.handle, name, { token, as: 'password' });
  await git.ok(['push', '-q', url, 'HEAD:refs/heads/main'], { cwd: dir, timeoutMs: 120_000 });
}

/** The distinct `href` values of links whose text is `label` (unescaped). */
function hrefsOf(body: string, label: string): string[] {
  const hrefs = [...body.matchAll(/<a[^>]*href="([^"]+)"[^>]*>([^<]*)<\/a>/g)]
    .filter((match) => match[2]?.trim() === label)
    .map((match) => (match[1] ?? '').replaceAll('&amp;', '&'));
  return [...new Set(hrefs)];
}

async function get(path: string): Promise<{ status: number; body: string; bytes: number }> {
  const response = await fetch(kiln.url + path);
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, body: bytes.toString('utf8'), bytes: bytes.length };
}

describe('a job log of 10,000 rows of 64 KiB', () => {
  let page: string;
  let expected: string;
  let expectedBytes = 0;

  beforeAll(async () => {
    await makeRepo(kiln, owner, 'logs');
    const runner = await ReplayRunner.register(kiln);
    const dir = await git.init();
    await git.commit(
      dir,
      {
        '.gitea/workflows/ci.yml':
          'on: push\njobs:\n  big:\n    runs-on: ubuntu-latest\n    steps:\n      - run: yes\n',
      },
      'CI',
    );
    await push('logs', dir);
    const task: Task = await runner.next();
    const shapes = rowShapes();
    const hash = createHash('sha256');
    const time = new Date('2026-01-02T03:04:05.678Z');
    for (let from = 0; from < ROWS; from += 100) {
      const rows: LogRow[] = Array.from({ length: 100 }, (_, at) => ({
        time,
        content: shapes[(from + at) % shapes.length] ?? '',
      }));
      await kiln.app.services.ciLogs.append(Number(task.id), from, rows);
      for (const row of rows) {
        const line = `${time.toISOString()} ${row.content}\n`;
        hash.update(line);
        expectedBytes += Buffer.byteLength(line);
      }
    }
    expected = hash.digest('hex');
    page = `/repos/${owner.handle}/logs/actions/runs/1/jobs/${task.id}`;
  }, 180_000);

  it('renders the latest lines in a bounded page that links to the older ones', async () => {
    const latest = await get(page);
    expect(latest.status).toBe(200);
    expect(latest.bytes).toBeLessThan(PAGE_BOUND);
    expect(latest.body).toContain(`of ${ROWS.toLocaleString('en-US')}`);
    // Rows of 64 KiB are cut with a mark saying how much is left out.
    expect(latest.body).toMatch(/data-cut="\d+"/);
    expect(latest.body).toContain(`L${ROWS}"`);
    const [older] = hrefsOf(latest.body, 'Older lines');
    expect(older).toMatch(/\?before=\d+$/);
    const firstShown = Number(older?.split('=')[1]);
    expect(firstShown).toBeGreaterThan(0);
    expect(firstShown).toBeLessThan(ROWS);

    // The older page ends just before the first line shown, and links back to it.
    const previous = await get(older ?? '');
    expect(previous.status).toBe(200);
    expect(previous.bytes).toBeLessThan(PAGE_BOUND);
    expect(hrefsOf(previous.body, 'Newer lines')).toEqual([`${page}?from=${firstShown}`]);
    expect(previous.body).toContain(`L${firstShown}"`);
    expect(previous.body).not.toContain(`L${firstShown + 1}"`);
  });

  it('pages forwards from the first line with ?from=', async () => {
    const first = await get(`${page}?from=0`);
    expect(first.status).toBe(200);
    expect(first.bytes).toBeLessThan(PAGE_BOUND);
    expect(first.body).toContain('-L1"');
    const [newer] = hrefsOf(first.body, 'Newer lines');
    const next = Number(newer?.split('from=')[1]);
    expect(next).toBeGreaterThan(0);
    expect(first.body).toContain(`L${next}"`);
    const second = await get(newer ?? '');
    expect(second.bytes).toBeLessThan(PAGE_BOUND);
    expect(second.body).toContain(`L${next + 1}"`);
    expect(hrefsOf(second.body, 'Older lines')).toEqual([`${page}?before=${next}`]);
  });

  it('streams the whole raw log byte for byte as plain text', async () => {
    const response = await fetch(`${kiln.url}${page}/logs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const hash = createHash('sha256');
    let bytes = 0;
    const reader = response.body?.getReader();
    for (let read = await reader?.read(); read && !read.done; read = await reader?.read()) {
      hash.update(read.value);
      bytes += read.value.length;
    }
    expect(bytes).toBe(expectedBytes);
    expect(hash.digest('hex')).toBe(expected);
  });
});

describe('a commit with a 16 MiB diff', () => {
  let dir: string;
  let sha: string;
  let parent: string;
  let commitPage: string;

  beforeAll(async () => {
    await makeRepo(kiln, owner, 'huge');
    dir = await git.init();
    parent = await git.commit(dir, { 'README.md': 'small\n', 'huge.txt': 'start\n' }, 'root');
    const files: Record<string, string> = {};
    const line = (n: number) => `line ${n} <tag attr="&amp;"> é€😀 ${'z'.repeat(60)}\n`;
    for (let file = 0; file < 120; file++) {
      files[`many/file-${String(file).padStart(3, '0')}.txt`] = Array.from(
        { length: 400 },
        (_, n) => line(n),
      ).join('');
    }
    files['long-lines.txt'] = Array.from(
      { length: 12 },
      (_, n) => `${n}${'<&'.repeat(100_000)}\n`,
    ).join('');
    files['huge.txt'] = Array.from({ length: 100_000 }, (_, n) => line(n)).join('');
    sha = await git.commit(dir, files, 'a very large change');
    await push('huge', dir);
    commitPage = `/repos/${owner.handle}/huge/commit/${sha}`;
  }, 180_000);

  it('is a diff of more than 16 MiB', async () => {
    const diff = await git.ok(['diff', '--no-color', parent, sha], { cwd: dir });
    expect(Buffer.byteLength(diff)).toBeGreaterThan(16 * 1024 * 1024);
  });

  it('renders a bounded commit page with a "load diff" link for each file cut short', async () => {
    const shown = await get(commitPage);
    expect(shown.status).toBe(200);
    expect(shown.bytes).toBeLessThan(PAGE_BOUND + 256 * 1024);
    const loads = hrefsOf(shown.body, 'Load diff');
    expect(loads.length).toBeGreaterThan(1);
    expect(loads.every((href) => href.startsWith(`${commitPage}?file=`))).toBe(true);
    expect(hrefsOf(shown.body, 'Raw diff')).toContain(`${commitPage}.diff`);

    // Each file's own page is bounded too, shows that file and cuts its long lines with a mark.
    const long = loads.find((href) => href.includes('long-lines.txt'));
    const huge = loads.find((href) => href.includes('huge.txt'));
    for (const href of [long, huge]) {
      expect(href).toBeDefined();
      const one = await get(href ?? '');
      expect(one.status).toBe(200);
      expect(one.bytes).toBeLessThan(PAGE_BOUND + 64 * 1024);
      expect(one.body).toContain('1 changed file');
    }
    const longPage = await get(long ?? '');
    expect(longPage.body).toContain('&lt;&amp;&lt;&amp;');
    expect(longPage.body).toMatch(/data-cut="\d+"/);
  });

  it('serves the raw .diff exactly as git diff prints it, and the .patch', async () => {
    const expected = await git.ok(
      ['diff', '--no-color', '--no-ext-diff', '--no-textconv', '--binary', parent, sha],
      { cwd: dir },
    );
    const response = await fetch(`${kiln.url}${commitPage}.diff`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const served = await response.text();
    expect(served.length).toBe(expected.length + 1);
    expect(served === `${expected}\n`).toBe(true);
    const patch = await get(`${commitPage}.patch`);
    expect(patch.status).toBe(200);
    expect(patch.body.startsWith(`From ${sha} `)).toBe(true);
  });
});
