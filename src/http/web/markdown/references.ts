import type { StateCore, Token } from 'markdown-it';

/** The repository a document belongs to: `#12` points at its pull 12. */
export type MarkdownRepo = { readonly owner: string; readonly name: string };

/**
 * `owner/repo#3`, `#12` and `@user` in prose. A reference must not follow a word character (or a
 * slash, for `#N`), so `a@b.c`, `issue#3` and URLs' fragments stay text. Handles follow the
 * account rules: letters, digits and inner `-`, `_`, `.`.
 */
const REFERENCE =
  /(?<![\w/])(?:(?<owner>[A-Za-z0-9][\w.-]*)\/(?<repo>[\w.-]+))?#(?<number>[1-9]\d{0,9})\b|(?<![\w@`])@(?<user>[A-Za-z0-9](?:[\w.-]*[A-Za-z0-9])?)/g;

/** A few shortcodes that forge bots (Renovate, Dependabot) and people write most. */
const EMOJI: Readonly<Record<string, string>> = {
  '+1': '👍',
  abcd: '🔡',
  children_crossing: '🚸',
  '-1': '👎',
  tada: '🎉',
  rocket: '🚀',
  warning: '⚠️',
  information_source: 'ℹ️',
  white_check_mark: '✅',
  heavy_check_mark: '✔️',
  x: '❌',
  heart: '❤️',
  bug: '🐛',
  sparkles: '✨',
  memo: '📝',
  lock: '🔒',
  zap: '⚡',
  fire: '🔥',
  eyes: '👀',
  bulb: '💡',
  construction: '🚧',
  recycle: '♻️',
  date: '📅',
  calendar: '📆',
  vertical_traffic_light: '🚦',
  no_bell: '🔕',
  bell: '🔔',
  ghost: '👻',
  arrow_up: '⬆️',
  arrow_down: '⬇️',
  see_no_evil: '🙈',
  wrench: '🔧',
  package: '📦',
  link: '🔗',
  smile: '😄',
  thinking: '🤔',
  question: '❓',
  exclamation: '❗',
};
const SHORTCODE = /:([a-z0-9_+-]+):/g;

function emojify(text: string): string {
  return text.replace(SHORTCODE, (code, name: string) => EMOJI[name] ?? code);
}

/** Where a reference points, or undefined when the document has no repository to resolve `#N`. */
function hrefOf(groups: Record<string, string | undefined>, repo: MarkdownRepo | undefined) {
  const seg = encodeURIComponent;
  if (groups.user) return `/${seg(groups.user)}`;
  if (groups.owner && groups.repo) {
    return `/repos/${seg(groups.owner)}/${seg(groups.repo)}/pulls/${groups.number}`;
  }
  return repo ? `/repos/${seg(repo.owner)}/${seg(repo.name)}/pulls/${groups.number}` : undefined;
}

/** One text token as text and link tokens. */
function split(state: StateCore, token: Token, repo: MarkdownRepo | undefined): Token[] {
  const text = emojify(token.content);
  const out: Token[] = [];
  let at = 0;
  const push = (content: string) => {
    if (!content) return;
    const piece = new state.Token('text', '', 0);
    piece.content = content;
    out.push(piece);
  };
  for (const match of text.matchAll(REFERENCE)) {
    const href = hrefOf(match.groups ?? {}, repo);
    if (href === undefined) continue;
    push(text.slice(at, match.index));
    const open = new state.Token('link_open', 'a', 1);
    open.attrs = [
      ['href', href],
      ['class', match.groups?.user ? 'user-mention' : 'issue-link'],
    ];
    out.push(open);
    push(match[0]);
    out.push(new state.Token('link_close', 'a', -1));
    at = match.index + match[0].length;
  }
  push(text.slice(at));
  return out;
}

/** Whether raw inline HTML opens (1), closes (-1) or does not touch (0) a link or code element. */
function htmlDepth(token: Token): number {
  if (token.type !== 'html_inline') return 0;
  if (/^<(a|code|pre|kbd|samp)\b/i.test(token.content)) return 1;
  if (/^<\/(a|code|pre|kbd|samp)\s*>/i.test(token.content)) return -1;
  return 0;
}

/**
 * A core rule linking references and replacing emoji shortcodes in text. It runs after linkify
 * and sees only `text` tokens outside links (markdown or raw `<a>`) and raw code elements: code
 * spans and blocks are other token types, so `#1` in code stays as written.
 */
export function references(state: StateCore): void {
  const repo = (state.env as { base?: { repo?: MarkdownRepo } } | undefined)?.base?.repo;
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    let inside = 0;
    const children: Token[] = [];
    for (const token of block.children) {
      if (token.type === 'link_open') inside += 1;
      if (token.type === 'link_close') inside = Math.max(0, inside - 1);
      inside = Math.max(0, inside + htmlDepth(token));
      const pieces = token.type === 'text' && inside === 0 ? split(state, token, repo) : [token];
      for (const piece of pieces) children.push(piece);
    }
    block.children = children;
  }
}
