import type { MarkdownBase } from '../markdown.ts';

/** What is to be rendered; plain data, as it crosses a thread boundary. */
export type RenderTask =
  | { readonly kind: 'markdown'; readonly text: string; readonly base: MarkdownBase | undefined }
  /** Short documents rendered in one job (review comments); `output` is a JSON array of them. */
  | {
      readonly kind: 'markdown-list';
      readonly texts: readonly string[];
      readonly base: MarkdownBase | undefined;
    }
  /** `output` is the highlighted lines joined by `\n`; none of them holds a line break. */
  | { readonly kind: 'highlight'; readonly fileName: string; readonly text: string };

/**
 * A task as a worker receives it. `maxOutput` caps the markup in characters: output over it is
 * answered as `null` (shown as plain text), because a page of that much markup costs the main
 * thread more to send than the content is worth.
 */
export type RenderJob = RenderTask & { readonly maxOutput: number };
