import type { StateCore, Token } from 'markdown-it';

/** What GitHub adds to CommonMark besides tables and autolinks: heading anchors, task lists. */

/**
 * GitHub's anchor for a heading: its text in lower case, without punctuation or symbols, spaces
 * turned to `-` ("Hello, World!" → `hello-world`).
 */
export function slugOf(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

function plainText(inline: Token | undefined): string {
  return (inline?.children ?? [])
    .filter((token) => token.type === 'text' || token.type === 'code_inline')
    .map((token) => token.content)
    .join('');
}

/**
 * A core rule giving each heading an `id` from its text, de-duplicated within the document as
 * GitHub does (`a`, `a-1`, `a-2`), so `#section` links land.
 */
export function headingAnchors(state: StateCore): void {
  const used = new Set<string>();
  const suffixes = new Map<string, number>();
  state.tokens.forEach((token, index) => {
    if (token.type !== 'heading_open') return;
    const slug = slugOf(plainText(state.tokens[index + 1]));
    let suffix = suffixes.get(slug) ?? 0;
    let id = slug;
    while (used.has(id)) {
      suffix += 1;
      id = `${slug}-${suffix}`;
    }
    suffixes.set(slug, suffix);
    used.add(id);
    if (id) token.attrSet('id', id);
  });
}

const TASK = /^\[([ xX])\][ \t]/;

/**
 * A core rule turning list items that start with `[ ]` or `[x]` into disabled checkboxes: a page
 * cannot change the document, so the boxes only show its state.
 */
export function taskLists(state: StateCore): void {
  const lists: Token[] = [];
  const { tokens } = state;
  tokens.forEach((token, index) => {
    if (token.type === 'bullet_list_open' || token.type === 'ordered_list_open') lists.push(token);
    if (token.type === 'bullet_list_close' || token.type === 'ordered_list_close') lists.pop();
    if (token.type !== 'list_item_open') return;
    const inline = tokens[index + 2];
    const first = inline?.children?.[0];
    if (tokens[index + 1]?.type !== 'paragraph_open' || inline?.type !== 'inline') return;
    const match = first?.type === 'text' ? TASK.exec(first.content) : null;
    if (!first || !match) return;
    first.content = first.content.slice(match[0].length);
    const box = new state.Token('html_inline', '', 0);
    box.content = `<input type="checkbox" class="task-list-item-checkbox" disabled${match[1] === ' ' ? '' : ' checked'}> `;
    inline.children?.unshift(box);
    token.attrJoin('class', 'task-list-item');
    const list = lists.at(-1);
    if (list && !list.attrGet('class')) list.attrSet('class', 'contains-task-list');
  });
}
