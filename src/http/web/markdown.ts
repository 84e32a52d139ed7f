import type MarkdownIt from 'markdown-it';
import type { Token } from 'markdown-it';
import type sanitizeHtml from 'sanitize-html';
import { lazily } from '../../lib/lazily.ts';
import { loadHighlighter } from './highlight.ts';
import { type Html, trusted } from './html.ts';
import { allowlist } from './markdown/allowlist.ts';
import { headingAnchors, taskLists } from './markdown/gfm.ts';
import type { MarkdownBase } from './markdown/links.ts';
import { references } from './markdown/references.ts';

export { type MarkdownBase, resolveRelative } from './markdown/links.ts';

type Renderer = ReturnType<typeof MarkdownIt>;

/**
 * Moves table alignment out of `style` attributes (which the Content-Security-Policy forbids)
 * into Primer's text alignment classes; any other inline style is dropped.
 */
function withoutInlineStyle(token: Token): void {
  const style = token.attrGet('style');
  if (typeof style === 'string') {
    token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'style');
    const align = /text-align:\s*(left|right|center)/.exec(style);
    if (align) token.attrJoin('class', `text-${align[1]}`);
  }
  for (const child of token.children ?? []) withoutInlineStyle(child);
}

function renderer(
  markdownIt: typeof MarkdownIt,
  highlight: (code: string, language: string) => string,
): Renderer {
  // Raw HTML on, as GitHub and Gitea render it (`<details>`, `<sub>`, `<br>`…): everything the
  // renderer writes passes the sanitizer's allowlist (markdown/allowlist.ts) before a page
  // sees it. markdown-it also refuses javascript: and data: links written as markdown.
  const md = markdownIt({ html: true, linkify: true, typographer: false, highlight });
  md.core.ruler.push('kiln_no_inline_style', (state) => {
    for (const token of state.tokens) withoutInlineStyle(token);
  });
  md.core.ruler.push('kiln_heading_anchors', headingAnchors);
  md.core.ruler.push('kiln_task_lists', taskLists);
  md.core.ruler.push('kiln_references', references);
  return md;
}

type Engine = { readonly md: Renderer; readonly sanitize: typeof sanitizeHtml };

/** Loaded with the first document rendered, like the highlighter: an idle worker holds neither. */
export const loadMarkdown = lazily(
  (): Promise<Engine> =>
    Promise.all([import('markdown-it'), import('sanitize-html'), loadHighlighter()]).then(
      ([markdownIt, sanitize, hljs]) => ({
        md: renderer(markdownIt.default, (code, language) => {
          if (!language || !hljs.getLanguage(language)) return '';
          return hljs.highlight(code, { language, ignoreIllegals: true }).value;
        }),
        sanitize: sanitize.default,
      }),
    ),
);

/**
 * Markdown as GitHub renders it, as safe markup: GFM tables, task lists, autolinks, heading
 * anchors, `#12`/`owner/repo#3`/`@user` links, a few emoji shortcodes, and raw HTML within
 * GitHub's allowlist; relative links and images are pointed into the repository, fenced code is
 * highlighted. Unbounded in time on crafted input: pages reach it only through the render pool
 * (render/content-renderer.ts).
 */
export async function renderMarkdown(text: string, base?: MarkdownBase): Promise<Html> {
  const { md, sanitize } = await loadMarkdown();
  return trusted(sanitize(md.render(text, { base }), allowlist(base)));
}
