/**
 * Content crafted to make the renderers slow does not hold the server. A repository holds files
 * on which highlight.js's grammars backtrack (Perl, CSS, LaTeX) and a README, a release and a
 * pull request carry half a megabyte of markdown built to be expensive (nested lists, unclosed
 * brackets and emphasis). While eight clients request those pages over and over, a ninth asks
 * `/healthz`: every answer comes within a second, every page answers 200 (plain text under a
 * notice when rendering ran out of time) or 503 with `Retry-After`, never a hang or a 5xx; a
 * process whose render queue is full answers 503 with `Retry-After`. Then SIGTERM, with a render
 * in flight, still drains and exits.
 */
import { describe, expect, it } from 'vitest';
import { seedCraftedContent } from './crafted-content.ts';
import { type HostileWorld, useHostileWorld } from './support.ts';

const BUDGET_MS = 1000;
const LOAD_MS = 8000;
const CLIENTS = 8;

let world: HostileWorld;
let pages: string[];

useHostileWorld(
  async (started) => {
    world = started;
    pages = await seedCraftedContent(world);
  },
  { SERVICE_RENDER_TIMEOUT: `${BUDGET_MS}ms` },
  120_000,
);

type Answer = { path: string; status: number; retryAfter: string | null; body: string };

async function get(path: string): Promise<Answer> {
  const response = await fetch(`${world.kiln.url}${path}`, { signal: AbortSignal.timeout(30_000) });
  return {
    path,
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: await response.text(),
  };
}

/** `/healthz` round trips, one after another, until `until` resolves; a stuck one counts as 5 s. */
async function healthLatencies(until: Promise<unknown>): Promise<number[]> {
  let done = false;
  void until.finally(() => {
    done = true;
  });
  const latencies: number[] = [];
  while (!done) {
    const started = performance.now();
    const ok = await fetch(`${world.kiln.url}/healthz`, { signal: AbortSignal.timeout(5000) })
      .then((response) => response.status === 200)
      .catch(() => false);
    latencies.push(ok ? performance.now() - started : 5000);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return latencies;
}

describe('rendering crafted content', () => {
  it('keeps every page of crafted content within a few times the content’s size', async () => {
    // Highlighted, 300 KB of `1,` is 5 MB of markup: sending that is main-thread work for every
    // viewer. Markup past the cap is shown as the text instead.
    for (const path of pages) {
      const answer = await get(path);
      expect(answer.status, path).toBe(200);
      expect(answer.body.length, path).toBeLessThan(2_000_000);
    }
    const json = await get(pages.find((path) => path.endsWith('wide.json')) as string);
    // Too large, or out of time on a loaded machine: either way not sent as markup.
    expect(json.body).toMatch(/Shown as plain text: it (is too large|took too long) to render\./);
  });

  it('keeps /healthz answering within a second while the worst pages are requested', async () => {
    const answers: Answer[] = [];
    const deadline = Date.now() + LOAD_MS;
    const load = Promise.all(
      Array.from({ length: CLIENTS }, async (_, client) => {
        for (let i = client; Date.now() < deadline; i++) {
          answers.push(await get(pages[i % pages.length] as string));
        }
      }),
    );
    const latencies = await healthLatencies(load);
    await load;

    expect(latencies.length).toBeGreaterThan(5);
    expect(Math.max(...latencies), `healthz latencies ${latencies.map(Math.round)}`).toBeLessThan(
      1000,
    );
    for (const answer of answers) {
      const what = `${answer.path} → ${answer.status}`;
      expect([200, 503], what).toContain(answer.status);
      if (answer.status === 503) expect(Number(answer.retryAfter), what).toBeGreaterThan(0);
    }
    // Every page was answered, and the Perl file (minutes of work unbounded) as plain text.
    for (const path of pages)
      expect(answers.some((a) => a.path === path && a.status === 200)).toBe(true);
    const perl = answers.find((a) => a.path.endsWith('slow.pl') && a.status === 200);
    expect(perl?.body).toContain('Shown as plain text: it took too long to render.');
    expect(world.kiln.stderr()).not.toMatch(/unhandled error|internal server error/i);
  }, 60_000);

  it('drains on SIGTERM with a render in flight, and exits', async () => {
    const { kiln, owner, repo } = world;
    // A file this process has not rendered yet, asked on a keep-alive connection as browsers and
    // proxies do: once answered, that connection must not hold the drain.
    const inFlight = get(`/repos/${owner}/${repo}/src/main/fresh.pl`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = performance.now();
    await kiln.stop();
    expect(kiln.child.exitCode, kiln.stderr()).toBe(0);
    expect(performance.now() - started).toBeLessThan(BUDGET_MS + 5000);
    expect([200, 503]).toContain((await inFlight).status);
  }, 30_000);

  it('answers 503 with Retry-After, not a hang, when every worker is taken', async () => {
    const { deployment, owner, repo } = world;
    // A second process on the same data, once the first has stopped (one server per SQLite data
    // directory): its cache is empty, and one job may wait.
    const tight = await deployment.start({
      SERVICE_RENDER_TIMEOUT: `${BUDGET_MS}ms`,
      SERVICE_RENDER_WORKERS: '1',
      SERVICE_RENDER_QUEUE: '1',
    });
    try {
      const files = ['slow.pl', 'slow.css', 'slow.tex', 'fresh.pl'];
      const answers = await Promise.all(
        files.map(async (file) => {
          const response = await fetch(`${tight.url}/repos/${owner}/${repo}/src/main/${file}`, {
            signal: AbortSignal.timeout(30_000),
          });
          await response.text();
          return { status: response.status, retryAfter: response.headers.get('retry-after') };
        }),
      );
      const refused = answers.filter((answer) => answer.status === 503);
      expect(refused.length, JSON.stringify(answers)).toBeGreaterThan(0);
      for (const answer of answers) expect([200, 503]).toContain(answer.status);
      for (const answer of refused) expect(Number(answer.retryAfter)).toBeGreaterThan(0);
    } finally {
      await tight.stop();
    }
  }, 60_000);
});
