import { Unavailable } from '../../../domain/errors.ts';
import type { CacheRegistry } from '../../../lib/cache-registry.ts';
import { contentHash } from '../../../lib/content-hash.ts';
import { PoolFull, WorkerPool } from '../../../lib/worker-pool.ts';
import { encoded, encodedBytes, type Html, trusted } from '../html.ts';
import type { MarkdownBase } from '../markdown.ts';
import { DocumentHashes } from './document-hashes.ts';
import { type PlainReason, plainDocument, plainLines, plainNotice } from './plain-text.ts';
import { RenderCache } from './render-cache.ts';
import type { RenderJob, RenderTask } from './render-job.ts';

/** The `service.render.*` settings. */
export type RenderSettings = {
  readonly workers: number;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly queueLimit: number;
  readonly cacheBytes: number;
};

/** A file's lines made into a page fragment, how many there are, and the notice above them. */
export type CodeView = {
  readonly lineCount: number;
  readonly markup: Html;
  readonly notice: Html | undefined;
  /** The size of the blob shown, which its id fixes. */
  readonly sizeBytes: number;
};

type Outcome =
  | { readonly kind: 'rendered'; readonly output: string }
  | { readonly kind: 'plain'; readonly reason: PlainReason };

/** Content over `service.render.max-bytes`: never rendered, shown as text. */
const TOO_LARGE: Outcome = { kind: 'plain', reason: 'too-large' };

/**
 * Markup built from an outcome, kept encoded; for code, how many lines it shows and the size of
 * the blob, which its id fixes (0 for documents).
 */
type Fragment = {
  readonly kind: 'fragment';
  readonly markup: Html;
  readonly lineCount: number;
  readonly sizeBytes: number;
};

/** What the cache holds: outcomes of renders, and fragments built from them. */
type Cached = Outcome | Fragment;

/**
 * Characters of markup a render may produce per byte of `service.render.max-bytes` (2 Mi by
 * default). Highlighting can grow text twentyfold (a 400 KB line of `a{` becomes 8 MB of spans),
 * and sending a page is work on the main thread in proportion to its size, so markup beyond this
 * is not used: the page shows the text, escaped, under a notice.
 */
const MARKUP_PER_BYTE = 4;
/** Characters of long documents whose hashes are remembered (document-hashes.ts). */
const REMEMBERED_DOCUMENT_CHARS = 8 * 1024 * 1024;
/** Heap of one worker: a render needing more ends as `failed`, the process lives on. */
const WORKER_HEAP_MB = 256;
/** A worker (tens of MB with both libraries loaded) idle this long is stopped. */
const WORKER_IDLE_MS = 60_000;
/**
 * How long a render that ran out of time (or killed its worker) is answered as plain text
 * without trying again: long enough that a crafted file costs one budget per this period, not
 * one per request; short enough that a document that only lost a race with load gets rendered.
 */
const FAILURE_TTL_MS = 5 * 60_000;

/**
 * Markdown and highlighted code for pages, bounded in time whatever the content.
 *
 * THE RULE: no user-supplied content is rendered on the main thread. markdown-it and
 * highlight.js (superlinear on crafted input: a Perl file of 512 KB of `s` took 114 s) run only
 * in the workers of this class's pool, one job at a time, each within `service.render.timeout`
 * or its worker is terminated and replaced. The main thread does only linear work on content:
 * hashing it for the cache key and escaping it for the plain-text fallback. Content over
 * `service.render.max-bytes` is never sent to a worker. `render-boundary.test.ts` checks the
 * rule: only the worker's modules import the two libraries or the modules that call them.
 *
 * Output is cached by content (blob id or hash, plus what else shapes it), so a page viewed again
 * costs a lookup; identical renders in flight are shared. When the pool's queue is full, pages
 * answer 503 with `Retry-After` (an `Unavailable` carrying `retryAfterSeconds`).
 */
export class ContentRenderer {
  readonly #settings: RenderSettings;
  readonly #pool: WorkerPool<RenderJob, string | null>;
  readonly #cache: RenderCache<Cached>;
  readonly #inFlight = new Map<string, Promise<Outcome>>();
  readonly #hashes = new DocumentHashes(REMEMBERED_DOCUMENT_CHARS);

  /** Declares its caches to `caches` (the process's registry, one set per server) when given. */
  constructor(settings: RenderSettings, caches?: Pick<CacheRegistry, 'addEach'>) {
    this.#settings = settings;
    this.#pool = new WorkerPool({
      file: new URL('./render-worker.ts', import.meta.url),
      size: settings.workers,
      timeoutMs: settings.timeoutMs,
      queueLimit: settings.queueLimit,
      maxHeapMb: WORKER_HEAP_MB,
      idleMs: WORKER_IDLE_MS,
    });
    this.#cache = new RenderCache(settings.cacheBytes);
    caches?.addEach(
      {
        name: 'rendered_documents',
        key: 'content hash or blob id, and what shapes the render',
        freshness: 'immutable',
        bound: 'service.render cache bytes',
      },
      this.#cache.measured,
    );
    caches?.addEach(
      {
        name: 'document_hashes',
        key: 'text',
        freshness: 'immutable',
        bound: '8 Mi characters',
      },
      this.#hashes.measured,
    );
  }

  /**
   * A markdown document as safe markup, or its text under a notice, kept encoded. `blobId` (the
   * id of the blob the text was read from) keys it without hashing the text, and lets a later
   * view find it with `keptMarkdown` before reading the blob at all.
   */
  async markdown(text: string, base?: MarkdownBase, blobId?: string): Promise<Html> {
    const key = documentKey(blobId === undefined ? this.#hashes.of(text) : blobKey(blobId), base);
    const outcome: Outcome =
      Buffer.byteLength(text) > this.#settings.maxBytes
        ? TOO_LARGE
        : await this.#render(key, { kind: 'markdown', text, base });
    return this.#fragment(viewKey(key, outcome), outcome, () => ({
      markup:
        outcome.kind === 'rendered' ? trusted(outcome.output) : plainDocument(text, outcome.reason),
      lineCount: 0,
      sizeBytes: 0,
    })).markup;
  }

  /** What `markdown` made of this blob with this base, if it is still kept. */
  keptMarkdown(blobId: string, base?: MarkdownBase): Html | undefined {
    return this.#kept(documentKey(blobKey(blobId), base))?.fragment.markup;
  }

  /**
   * Short documents (review comments) as safe markup, in order. They are rendered in as few jobs
   * as `service.render.max-bytes` allows, one after another, so a pull with hundreds of comments
   * holds one place in the queue, not hundreds; one over the cap alone is shown as text.
   */
  async markdownList(texts: readonly string[], base?: MarkdownBase): Promise<Html[]> {
    const rendered: Html[] = [];
    // One batch after another: a page holds one place in the queue at a time.
    for (const batch of batchesOf(texts, this.#settings.maxBytes)) {
      for (const one of await this.#markdownBatch(batch, base)) rendered.push(one);
    }
    return rendered;
  }

  async #markdownBatch(batch: readonly string[], base: MarkdownBase | undefined): Promise<Html[]> {
    const [only] = batch;
    if (batch.length === 1 && only !== undefined) return [await this.markdown(only, base)];
    const key = `mds\0${contentHash(JSON.stringify(batch))}\0${JSON.stringify(base ?? null)}`;
    const outcome = await this.#render(key, { kind: 'markdown-list', texts: batch, base });
    if (outcome.kind === 'plain') return batch.map((text) => plainDocument(text, outcome.reason));
    return (JSON.parse(outcome.output) as string[]).map((output) => trusted(output));
  }

  /**
   * A file's lines made into a fragment by `view` (highlighted, or escaped under a notice), kept
   * with the render by `blobId`: a file page viewed again builds nothing, and its markup is kept
   * encoded, so the page copies its bytes instead of encoding megabytes of spans again (see
   * `encoded`). `view` must depend on the lines alone.
   */
  async codeView(
    file: { name: string; text: string; blobId: string; sizeBytes: number },
    view: (lines: readonly string[]) => Html,
  ): Promise<CodeView> {
    const { text } = file;
    const key = codeKey(file.blobId, file.name);
    const outcome: Outcome =
      Buffer.byteLength(text) > this.#settings.maxBytes
        ? TOO_LARGE
        : await this.#render(key, { kind: 'highlight', fileName: file.name, text });
    const fragment = this.#fragment(viewKey(key, outcome), outcome, () => {
      const lines = outcome.kind === 'rendered' ? outcome.output.split('\n') : plainLines(text);
      return { markup: view(lines), lineCount: lines.length, sizeBytes: file.sizeBytes };
    });
    return codeViewOf(fragment, outcome);
  }

  /**
   * The view `codeView` made of this blob under this name, if it is still kept: then the page
   * needs neither the blob's text nor anything built from it.
   */
  keptCodeView(blobId: string, name: string): CodeView | undefined {
    const kept = this.#kept(codeKey(blobId, name));
    return kept && codeViewOf(kept.fragment, kept.outcome);
  }

  /** The fragment kept of what was rendered under `key`, and the outcome it shows. */
  #kept(key: string): { fragment: Fragment; outcome: Outcome } | undefined {
    const kept = this.#cache.get(key);
    // No outcome kept: the text was too large to render, or nothing of it is kept any more.
    const outcome: Outcome = kept && kept.kind !== 'fragment' ? kept : TOO_LARGE;
    const fragment = this.#cache.get(viewKey(key, outcome));
    return fragment?.kind === 'fragment' ? { fragment, outcome } : undefined;
  }

  /**
   * The fragment cached under `key`, or `build`'s, encoded and kept for as long as the
   * outcome it shows would be: for good when rendered or too large, for the failure period when
   * a render ran out of time or failed.
   */
  #fragment(key: string, outcome: Outcome, build: () => Omit<Fragment, 'kind'>): Fragment {
    const cached = this.#cache.get(key);
    if (cached?.kind === 'fragment') return cached;
    const built = build();
    const markup = encoded(built.markup);
    const fragment = { ...built, kind: 'fragment' as const, markup };
    const retried = outcome.kind === 'plain' && outcome.reason !== 'too-large';
    this.#cache.set(key, fragment, encodedBytes(markup), retried ? FAILURE_TTL_MS : undefined);
    return fragment;
  }

  /** Stops the workers; renders still waiting end as plain text. */
  close(): Promise<void> {
    return this.#pool.close();
  }

  async #render(key: string, job: RenderTask): Promise<Outcome> {
    const cached = this.#cache.get(key);
    if (cached && cached.kind !== 'fragment') return cached;
    const pending = this.#inFlight.get(key);
    if (pending) return pending;
    const started = this.#run(key, job);
    this.#inFlight.set(key, started);
    try {
      return await started;
    } finally {
      this.#inFlight.delete(key);
    }
  }

  async #run(key: string, task: RenderTask): Promise<Outcome> {
    let ran: Awaited<ReturnType<WorkerPool<RenderJob, string | null>['run']>>;
    try {
      ran = await this.#pool.run({ ...task, maxOutput: MARKUP_PER_BYTE * this.#settings.maxBytes });
    } catch (error) {
      if (!(error instanceof PoolFull)) throw error;
      throw new Unavailable('Too many pages are being rendered; try again shortly.', {
        details: { retryAfterSeconds: Math.max(1, Math.ceil(this.#settings.timeoutMs / 1000)) },
      });
    }
    if (ran.kind === 'done') {
      const { output } = ran;
      // Markup over the cap is as lasting as the content it was made from: kept like output.
      const outcome: Outcome = output === null ? TOO_LARGE : { kind: 'rendered', output };
      this.#cache.set(key, outcome, output?.length ?? 0);
      return outcome;
    }
    if (ran.kind === 'closed') return { kind: 'plain', reason: 'failed' };
    const outcome: Outcome = {
      kind: 'plain',
      reason: ran.kind === 'timeout' ? 'timeout' : 'failed',
    };
    this.#cache.set(key, outcome, 0, FAILURE_TTL_MS);
    return outcome;
  }
}

/** `texts` in order, cut into runs of at most `maxBytes` (a longer text is a run alone). */
function batchesOf(texts: readonly string[], maxBytes: number): string[][] {
  const batches: string[][] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const text of texts) {
    const size = Buffer.byteLength(text);
    if (current.length > 0 && bytes + size > maxBytes) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(text);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/**
 * The cache key of a blob highlighted for a file name: the language comes from the name, so
 * the same blob under another name is another entry.
 */
function codeKey(blobId: string, name: string): string {
  return `hl\0${blobId}\0${name.toLowerCase()}`;
}

/** The cache key of a markdown document: its content's identity and where its links lead. */
function documentKey(content: string, base: MarkdownBase | undefined): string {
  return `md\0${content}\0${JSON.stringify(base ?? null)}`;
}

/** A blob's id as a document's identity, apart from any content hash. */
function blobKey(blobId: string): string {
  return `blob:${blobId}`;
}

/** The cache key of the fragment built from the outcome rendered under `key`. */
function viewKey(key: string, outcome: Outcome): string {
  return `${key}\0view\0${outcome.kind === 'rendered' ? 'rendered' : outcome.reason}`;
}

function codeViewOf(fragment: Fragment, outcome: Outcome): CodeView {
  return {
    markup: fragment.markup,
    lineCount: fragment.lineCount,
    notice: outcome.kind === 'plain' ? plainNotice(outcome.reason) : undefined,
    sizeBytes: fragment.sizeBytes,
  };
}
