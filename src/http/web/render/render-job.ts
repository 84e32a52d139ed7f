import type { MarkdownBase } from '../markdown.ts';

/** What a render worker is asked to do; plain data, as it crosses a thread boundary. */
export type RenderJob =
  | { readonly kind: 'markdown'; readonly text: string; readonly base: MarkdownBase | undefined }
  /** Short documents rendered in one job (review comments); `output` is a JSON array of them. */
  | {
      readonly kind: 'markdown-list';
      readonly texts: readonly string[];
      readonly base: MarkdownBase | undefined;
    }
  /** `output` is the highlighted lines joined by `\n`; none of them holds a line break. */
  | { readonly kind: 'highlight'; readonly fileName: string; readonly text: string };
