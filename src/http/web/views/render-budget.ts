import { type Html, html } from '../html.ts';

/**
 * What one page may spend on content a user controls, in bytes of HTML as sent: the escaped text
 * and the markup around it. Escaping grows text (`<` is four bytes as `&lt;`, `…` eight as a
 * reference), so the bound is applied to what is built, never to the text before it.
 */
export class RenderBudget {
  readonly limit: number;
  #used = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Bytes spent so far. */
  get used(): number {
    return this.#used;
  }

  /**
   * Spends the size of `markup` if it fits in what is left (and in `also`, a smaller budget
   * drawn from this one, such as one file's share of a page); false, spending nothing, if not.
   */
  take(markup: Html, also?: RenderBudget): boolean {
    const size = Buffer.byteLength(markup.value, 'utf8');
    if (this.#used + size > this.limit) return false;
    if (also !== undefined && also.#used + size > also.limit) return false;
    this.#used += size;
    if (also !== undefined) also.#used += size;
    return true;
  }

  /**
   * Spends the size of `markup` whatever is left: for the first row of a page of a log, which
   * it shows even when larger than the budget so that its links always move on (the limits in
   * use make a row, cut as it is, far smaller than a page).
   */
  spend(markup: Html): void {
    this.#used += Buffer.byteLength(markup.value, 'utf8');
  }
}

/**
 * `text` cut to at most `maxChars` UTF-16 units, never between the halves of a surrogate pair,
 * with how many units were left out. The cost of showing a line then depends on the cap, not on
 * the line: a 16 MiB line shows its first few thousand characters and says so.
 */
export function cutText(text: string, maxChars: number): { text: string; left: number } {
  if (text.length <= maxChars) return { text, left: 0 };
  let end = maxChars;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return { text: text.slice(0, end), left: text.length - end };
}

/**
 * The mark that ends a line shown cut, and where the rest is. `left` is what the page knows was
 * left out (its attribute); the text names no count, since a line may have been cut before it
 * reached the page (git's output is read only so far, and a diff line decoded only so far).
 */
export function cutMark(left: number, where: string): Html {
  return html`<span class="kiln-cut color-fg-muted" data-cut="${left}">… the rest of this line is in the ${where}</span>`;
}

/** How long a page builds rows before it lets the event loop run what waits. */
export const BUILD_SLICE_MS = 1;

/** Builds waiting for their next slice, oldest first. */
const waiting: Array<() => void> = [];
let releasing = false;

/**
 * Lets the oldest waiting build run its next slice, then, if more wait, does so again on the
 * next turn of the event loop: an immediate queued while immediates run waits for the loop's
 * next turn, so what arrived on sockets meanwhile (an API call, a health check) runs between two
 * slices, however many pages are being built.
 */
function releaseNext(): void {
  releasing = false;
  waiting.shift()?.();
  if (waiting.length > 0) scheduleRelease();
}

function scheduleRelease(): void {
  if (releasing) return;
  releasing = true;
  setImmediate(releaseNext);
}

/**
 * A pause for long builds: each call returns a promise once `sliceMs` have passed since the last
 * pause (the caller awaits it, and the event loop runs what waited: an API call, a health check,
 * another page's turn), and undefined otherwise, so rows are built in slices of a few
 * milliseconds rather than one block of the whole page. Invariant: one turn of the event loop
 * resumes one slice of one build, so four pages built at once hold the loop for one slice
 * between two reads of the sockets, not four (each resumed in the same immediate phase did).
 */
export function pacer(sliceMs = BUILD_SLICE_MS): () => Promise<void> | undefined {
  let since = performance.now();
  return () => {
    const now = performance.now();
    if (now - since < sliceMs) return undefined;
    return new Promise<void>((resolve) => {
      waiting.push(() => {
        since = performance.now();
        resolve();
      });
      scheduleRelease();
    });
  };
}
