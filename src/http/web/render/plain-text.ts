import { escapeHtml, type Html, html } from '../html.ts';

/**
 * What pages show instead of rendered content: escaped text, one linear pass, safe to build on
 * the main thread at any size the caps allow.
 */

/** A file's lines as the page numbers them: a final line break does not start another line. */
export function linesOf(text: string): string[] {
  return (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
}

/** Lines of a file, escaped, for the code table. */
export function plainLines(text: string): string[] {
  return linesOf(text).map(escapeHtml);
}

/** Why content is shown as plain text. */
export type PlainReason = 'too-large' | 'timeout' | 'failed';

const WHY: Record<PlainReason, string> = {
  'too-large': 'it is too large to render',
  timeout: 'it took too long to render',
  failed: 'it could not be rendered',
};

/** The notice above content shown as plain text, e.g. "Shown as plain text: it is too large…". */
export function plainNotice(reason: PlainReason): Html {
  return html`<p class="flash flash-warn mb-2 f6" role="note">Shown as plain text: ${WHY[reason]}.</p>`;
}

/** A markdown document shown as its source text, under the notice. */
export function plainDocument(text: string, reason: PlainReason): Html {
  return html`${plainNotice(reason)}<pre>${text}</pre>`;
}
