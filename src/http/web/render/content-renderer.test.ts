import { afterEach, describe, expect, it } from 'vitest';
import { isDomainError } from '../../../domain/errors.ts';
import { contentHash } from '../../../lib/content-hash.ts';
import { type Html, html, toBytes, trusted } from '../html.ts';
import { ContentRenderer, type RenderSettings } from './content-renderer.ts';

const SETTINGS: RenderSettings = {
  workers: 1,
  timeoutMs: 1000,
  maxBytes: 64 * 1024,
  queueLimit: 8,
  cacheBytes: 1024 * 1024,
};

/** highlight.js's Perl grammar backtracks on a run of `s`: minutes for 512 KB. */
const PATHOLOGICAL_PERL = 's'.repeat(60_000);

/** Markup as a page would send it, encoded fragments included. */
const textOf = (markup: Html) => toBytes(markup).toString('utf8');

let renderer: ContentRenderer | undefined;
const make = (settings: Partial<RenderSettings> = {}) => {
  renderer = new ContentRenderer({ ...SETTINGS, ...settings });
  return renderer;
};
afterEach(async () => {
  await renderer?.close();
});

/**
 * A file's lines as its view is built from them (highlighted, or escaped under a notice), the
 * way a file page gets them; a file without a blob id stands for the blob its content names.
 * A view already kept is not built again: its lines are then empty, its notice still told.
 */
async function codeLines(
  r: ContentRenderer,
  file: { name: string; text: string; blobId?: string },
) {
  let lines: readonly string[] = [];
  const view = await r.codeView(
    {
      ...file,
      blobId: file.blobId ?? contentHash(file.text),
      sizeBytes: Buffer.byteLength(file.text),
    },
    (built) => {
      lines = built;
      return html``;
    },
  );
  return { lines, notice: view.notice };
}

/** Longest gap between ticks of a 10 ms timer while `work` runs: how long the loop was held. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 10);
  try {
    return { result: await work(), stallMs };
  } finally {
    clearInterval(timer);
  }
}

describe('ContentRenderer', () => {
  it('renders markdown and highlights code in a worker', async () => {
    const r = make();
    const doc = await r.markdown('# Hi\n\n<script>x</script>\n\n```js\nconst a = 1;\n```');
    expect(textOf(doc)).toContain('<h1 id="hi">Hi</h1>');
    expect(textOf(doc)).not.toContain('script');
    expect(textOf(doc)).toContain('hljs-keyword');
    const code = await codeLines(r, { name: 'a.ts', text: 'const x = "<b>";\nlet y;\n' });
    expect(code.notice).toBeUndefined();
    expect(code.lines).toHaveLength(2);
    expect(code.lines[0]).toContain('hljs-keyword');
    expect(code.lines[0]).toContain('&lt;b&gt;');
  });

  it('stops a render that overruns its budget, keeps the loop free, and recovers', async () => {
    const r = make({ timeoutMs: 1000 });
    await r.markdown('warm up');
    const { result, stallMs } = await longestStall(() =>
      codeLines(r, { name: 'x.pl', text: PATHOLOGICAL_PERL }),
    );
    expect(result.notice?.value).toContain('took too long to render');
    expect(result.lines).toEqual([PATHOLOGICAL_PERL]);
    // Generous: the worker ran for a second; the main thread must not have been held for it.
    expect(stallMs).toBeLessThan(500);
    // A fresh worker takes the next job.
    expect(textOf(await r.markdown('*ok*'))).toContain('<em>ok</em>');
  });

  it('shows content over the size cap as escaped text with a notice, without a worker', async () => {
    const r = make({ maxBytes: 1024 });
    await r.close();
    const text = `<b>${'x'.repeat(2000)}</b>`;
    const doc = await r.markdown(text);
    expect(textOf(doc)).toContain('too large to render');
    expect(textOf(doc)).toContain('&lt;b&gt;');
    const code = await codeLines(r, { name: 'a.js', text: `${text}\n` });
    expect(code.notice?.value).toContain('too large to render');
    expect(code.lines).toEqual([`&lt;b&gt;${'x'.repeat(2000)}&lt;/b&gt;`]);
  });

  it('shows text whose markup would outgrow the cap as escaped text, and remembers that', async () => {
    // 1 KB of `a{` is within the input cap; highlighted, each pair becomes spans, far over 4 KB.
    const r = make({ maxBytes: 1024 });
    const text = 'a{'.repeat(500);
    const code = await codeLines(r, { name: 'grow.css', text, blobId: 'grow' });
    expect(code.notice?.value).toContain('too large to render');
    expect(code.lines).toEqual([text]);
    // A file of the same size whose markup stays small is highlighted.
    const small = await codeLines(r, {
      name: 'ok.css',
      text: `a { color: red; }\n${' '.repeat(900)}`,
    });
    expect(small.notice).toBeUndefined();
    await r.close();
    const again = await codeLines(r, { name: 'grow.css', text, blobId: 'grow' });
    expect(again.notice?.value).toContain('too large to render');
  });

  it('answers again from its cache, by content, without a worker', async () => {
    const r = make();
    const first = await r.markdown('**cached**');
    const timedOut = await codeLines(r, { name: 'y.pl', text: PATHOLOGICAL_PERL, blobId: 'b1' });
    await r.close();
    expect(textOf(await r.markdown('**cached**'))).toBe(textOf(first));
    // Not rendered before: the closed pool cannot render it.
    expect(textOf(await r.markdown('**new**'))).toContain('could not be rendered');
    // A render that ran out of time is not tried again at once.
    const again = await codeLines(r, { name: 'y.pl', text: PATHOLOGICAL_PERL, blobId: 'b1' });
    expect(again.notice?.value).toBe(timedOut.notice?.value);
  });

  it('builds a file view once per blob and outcome, highlighted or as escaped text', async () => {
    const r = make();
    let built = 0;
    const view = (lines: readonly string[]) => {
      built += 1;
      return html`<ol>${lines.map((line) => html`<li>${trusted(line)}</li>`)}</ol>`;
    };
    const file = {
      name: 'a.ts',
      text: 'const x = "<b>";\nlet y;\n',
      blobId: 'b-ts',
      sizeBytes: 24,
    };
    expect(r.keptCodeView('b-ts', 'a.ts')).toBeUndefined();
    const first = await r.codeView(file, view);
    expect(first.lineCount).toBe(2);
    expect(first.notice).toBeUndefined();
    const text = (view: { markup: Html }) => textOf(view.markup);
    expect(text(first)).toMatch(
      /^<ol><li>.*hljs-keyword.*&lt;b&gt;.*<\/li><li>.*let.*<\/li><\/ol>$/,
    );
    const again = await r.codeView(file, view);
    expect(text(again)).toBe(text(first));
    expect(built).toBe(1);
    // Kept by blob and name: a page can show it without reading the blob.
    const kept = r.keptCodeView('b-ts', 'A.TS');
    expect(kept && text(kept)).toBe(text(first));
    expect(kept?.sizeBytes).toBe(24);
    expect(kept?.notice).toBeUndefined();
    expect(r.keptCodeView('b-ts', 'a.js')).toBeUndefined();
    // The same blob under another name is highlighted (and built) for that name.
    await r.codeView({ ...file, name: 'a.txt' }, view);
    expect(built).toBe(2);

    const large = {
      name: 'big.ts',
      text: `<i>\n${'x'.repeat(70 * 1024)}`,
      blobId: 'b-big',
      sizeBytes: 71_684,
    };
    const plain = await r.codeView(large, view);
    expect(plain.notice?.value).toContain('too large to render');
    expect(plain.lineCount).toBe(2);
    expect(text(plain).startsWith('<ol><li>&lt;i&gt;</li>')).toBe(true);
    await r.codeView(large, view);
    expect(built).toBe(3);
    expect(r.keptCodeView('b-big', 'big.ts')?.notice?.value).toContain('too large to render');

    const perl = { name: 'y.pl', text: PATHOLOGICAL_PERL, blobId: 'b-pl', sizeBytes: 60_000 };
    const slow = await r.codeView(perl, view);
    expect(slow.notice?.value).toContain('took too long');
    await r.codeView(perl, view);
    expect(built).toBe(4);
    expect(r.keptCodeView('b-pl', 'y.pl')?.notice?.value).toContain('took too long');
  });

  it('keeps a document read from a blob by its id and the base of its links', async () => {
    const r = make();
    const base = { links: '/repos/o/n/src/main', images: '/repos/o/n/raw/main', dir: '' };
    expect(r.keptMarkdown('b-md', base)).toBeUndefined();
    const first = await r.markdown('# Title\n\n[a](a.md)', base, 'b-md');
    expect(textOf(first)).toContain('<h1');
    expect(textOf(first)).toContain('href="/repos/o/n/src/main/a.md"');
    const kept = r.keptMarkdown('b-md', base);
    expect(kept && textOf(kept)).toBe(textOf(first));
    // Links resolve elsewhere under another base or ref: that is another document.
    const dev = { links: '/repos/o/n/src/dev', images: '/repos/o/n/raw/dev', dir: '' };
    expect(r.keptMarkdown('b-md', dev)).toBeUndefined();
    expect(r.keptMarkdown('b-other', base)).toBeUndefined();
    // Too large to render: the escaped text is kept under the blob's id all the same.
    const large = `<i>${'x'.repeat(70 * 1024)}`;
    await r.markdown(large, base, 'b-big');
    const plain = r.keptMarkdown('b-big', base);
    expect(plain && textOf(plain)).toContain('too large to render');
    expect(plain && textOf(plain)).toContain('&lt;i&gt;');
  });

  it('shares one render among identical requests in flight', async () => {
    const r = make({ timeoutMs: 300, queueLimit: 1 });
    // With a queue of one, eight distinct jobs would overflow; eight identical ones are one job.
    const all = await Promise.all(
      Array.from({ length: 8 }, () => codeLines(r, { name: 'z.pl', text: PATHOLOGICAL_PERL })),
    );
    expect(new Set(all.map((result) => result.notice?.value)).size).toBe(1);
  });

  it('renders many short documents in order, in few jobs, one over the cap as text', async () => {
    const r = make({ queueLimit: 1, maxBytes: 4096 });
    const texts = Array.from({ length: 200 }, (_, i) => `**c${i}** <details>x</details>`);
    texts.splice(7, 0, `<b>${'y'.repeat(5000)}</b>`);
    // 200 jobs would overflow a queue of one; batches of up to 4 KB, one at a time, do not.
    const out = await r.markdownList(texts);
    expect(out).toHaveLength(201);
    expect(textOf(out[0] ?? html``)).toContain('<strong>c0</strong>');
    expect(textOf(out[0] ?? html``)).toContain('<details>x</details>');
    expect(textOf(out[200] ?? html``)).toContain('<strong>c199</strong>');
    expect(textOf(out[7] ?? html``)).toContain('too large to render');
    expect(textOf(out[7] ?? html``)).toContain('&lt;b&gt;');
  });

  it('refuses with Unavailable and a Retry-After when the queue is full', async () => {
    const r = make({ timeoutMs: 1000, queueLimit: 2 });
    const jobs = Array.from({ length: 4 }, (_, i) =>
      codeLines(r, { name: `q${i}.pl`, text: `${PATHOLOGICAL_PERL}${i}` }).then(
        () => 'answered',
        (error: unknown) => error,
      ),
    );
    const outcomes = await Promise.all(jobs);
    const refused = outcomes.filter((outcome) => outcome !== 'answered');
    expect(refused.length).toBeGreaterThan(0);
    for (const error of refused) {
      expect(isDomainError(error) && error.code).toBe('unavailable');
      expect(isDomainError(error) && error.details?.retryAfterSeconds).toBe(1);
    }
  });
});
