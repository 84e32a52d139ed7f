import type MarkdownIt from 'markdown-it';
import { lazily } from '../../lib/lazily.ts';
import { loadHighlighter } from './highlight.ts';
import { type Html, trusted } from './html.ts';

/** Where relative links and images in a document point. */
export type MarkdownBase = {
  /** Prefix for links: the tree root of the ref, e.g. `/repos/o/n/src/main`. */
  readonly links: string;
  /** Prefix for images, e.g. `/repos/o/n/raw/main`. */
  readonly images: string;
  /** The document's directory inside the tree ('' for the root), e.g. `docs`. */
  readonly dir: string;
};

const ORIGIN = 'https://relative.invalid';

/**
 * A relative URL resolved from `dir` and put under `prefix` (never above it); absolute URLs,
 * fragments and rooted paths are returned unchanged.
 */
export function resolveRelative(href: string, prefix: string, dir = ''): string {
  if (
    href === '' ||
    href.startsWith('#') ||
    href.startsWith('/') ||
    /^[a-z][a-z0-9+.-]*:/i.test(href)
  ) {
    return href;
  }
  const url = new URL(href, `${ORIGIN}/${dir ? `${encodeURI(dir)}/` : ''}`);
  if (url.origin !== ORIGIN) return href;
  return `${prefix.replace(/\/+$/, '')}${url.pathname}${url.search}${url.hash}`;
}

type Renderer = ReturnType<typeof MarkdownIt>;

function baseOf(env: unknown): MarkdownBase | undefined {
  const base = (env as { base?: MarkdownBase } | undefined)?.base;
  return base;
}

type MarkdownToken = {
  attrs: Array<[string, string | number]> | null;
  children: MarkdownToken[] | null;
  attrGet(name: string): string | number | null;
  attrJoin(name: string, value: string): void;
};

/**
 * Moves table alignment out of `style` attributes (which the Content-Security-Policy forbids)
 * into Primer's text alignment classes; any other inline style is dropped.
 */
function withoutInlineStyle(token: MarkdownToken): void {
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
  // Raw HTML off: a README can never inject markup; markdown-it also refuses javascript: links.
  const md = markdownIt({ html: false, linkify: true, typographer: false, highlight });
  md.core.ruler.push('kiln_no_inline_style', (state) => {
    for (const token of state.tokens) withoutInlineStyle(token);
  });
  const defaultLink = md.renderer.rules.link_open;
  md.renderer.rules.link_open = (tokens, index, options, env, self) => {
    const token = tokens[index];
    const href = token?.attrGet('href');
    const base = baseOf(env);
    if (token && typeof href === 'string' && base) {
      token.attrSet('href', resolveRelative(href, base.links, base.dir));
    }
    return defaultLink
      ? defaultLink(tokens, index, options, env, self)
      : self.renderToken(tokens, index, options);
  };
  const defaultImage = md.renderer.rules.image;
  md.renderer.rules.image = (tokens, index, options, env, self) => {
    const token = tokens[index];
    const src = token?.attrGet('src');
    const base = baseOf(env);
    if (token && typeof src === 'string' && base) {
      token.attrSet('src', resolveRelative(src, base.images, base.dir));
    }
    return defaultImage
      ? defaultImage(tokens, index, options, env, self)
      : self.renderToken(tokens, index, options);
  };
  return md;
}

/** Loaded with the first document rendered, like the highlighter: an idle worker holds neither. */
export const loadMarkdown = lazily(() =>
  Promise.all([import('markdown-it'), loadHighlighter()]).then(([module, hljs]) =>
    renderer(module.default, (code, language) => {
      if (!language || !hljs.getLanguage(language)) return '';
      return hljs.highlight(code, { language, ignoreIllegals: true }).value;
    }),
  ),
);

/**
 * Markdown as safe markup: raw HTML is shown as text, links get markdown-it's scheme checks,
 * relative links and images are pointed into the repository, fenced code is highlighted.
 * Unbounded in time on crafted input: pages reach it only through the render pool
 * (render/content-renderer.ts).
 */
export async function renderMarkdown(text: string, base?: MarkdownBase): Promise<Html> {
  const md = await loadMarkdown();
  return trusted(md.render(text, { base }));
}
