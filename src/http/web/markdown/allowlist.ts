import type { IOptions, Transformer } from 'sanitize-html';
import { type MarkdownBase, resolveRelative } from './links.ts';

/**
 * What survives of rendered markdown, raw HTML included: GitHub's allowlist of elements and
 * attributes, less what a page here has no use for.
 *
 * THE INVARIANT: the output holds no script, no style (element or attribute, which the
 * Content-Security-Policy would refuse anyway), no event handler, no form, frame, object or SVG,
 * and no URL but http(s), mailto and relative ones (images: http(s) and relative only). `id` is
 * kept on headings only (their anchors) and `class` only with the names the renderer itself
 * writes, so a document cannot borrow the page's classes to dress up as its interface. Comments
 * are dropped.
 */
const TAGS = [
  ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'div', 'span', 'br', 'hr', 'wbr'],
  ...['b', 'i', 'strong', 'em', 's', 'strike', 'del', 'ins', 'sub', 'sup', 'small', 'mark'],
  ...['a', 'img', 'code', 'pre', 'tt', 'kbd', 'samp', 'var', 'q', 'blockquote', 'cite'],
  ...['abbr', 'dfn', 'time', 'bdo', 'ruby', 'rt', 'rp', 'figure', 'figcaption'],
  ...['ul', 'ol', 'li', 'dl', 'dt', 'dd', 'details', 'summary', 'input'],
  ...['table', 'caption', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td'],
];

const EVERYWHERE = ['align', 'title', 'dir', 'lang'];
const HEADINGS = Object.fromEntries(['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((h) => [h, ['id']]));
const ATTRIBUTES: IOptions['allowedAttributes'] = {
  '*': EVERYWHERE,
  ...HEADINGS,
  a: ['href', 'rel'],
  img: ['src', 'alt', 'width', 'height'],
  ol: ['start', 'type'],
  th: ['colspan', 'rowspan', 'scope'],
  td: ['colspan', 'rowspan'],
  details: ['open'],
  input: ['type', 'checked', 'disabled'],
  time: ['datetime'],
  blockquote: ['cite'],
  q: ['cite'],
  del: ['cite'],
  ins: ['cite'],
};

const ALIGNED = ['text-left', 'text-right', 'text-center'];
const CLASSES: IOptions['allowedClasses'] = {
  // highlight.js writes `hljs-keyword`, and `hljs-title function_` for sub-scopes.
  span: [/^hljs-[\w-]+$/, /^[a-z]+_+$/],
  code: [/^language-[\w+#.-]+$/, 'hljs'],
  th: ALIGNED,
  td: ALIGNED,
  ul: ['contains-task-list'],
  ol: ['contains-task-list'],
  li: ['task-list-item'],
  input: ['task-list-item-checkbox'],
  a: ['user-mention', 'issue-link'],
};

/** A heading's anchor: letters, digits, `-` and `_`, as the renderer writes them. */
const ANCHOR = /^[\p{L}\p{M}\p{N}_-]{1,200}$/u;

function transforms(base: MarkdownBase | undefined): Record<string, Transformer> {
  const heading: Transformer = (tagName, attribs) => {
    const { id, ...rest } = attribs;
    return { tagName, attribs: id && ANCHOR.test(id) ? { ...rest, id } : rest };
  };
  return {
    ...Object.fromEntries(['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((h) => [h, heading])),
    a: (tagName, attribs) => {
      const href =
        attribs.href && base ? resolveRelative(attribs.href, base.links, base.dir) : attribs.href;
      const external = href !== undefined && /^(?:https?:)?\/\//i.test(href);
      const { rel: _, ...rest } = attribs;
      return {
        tagName,
        attribs: {
          ...rest,
          ...(href === undefined ? {} : { href }),
          ...(external ? { rel: 'nofollow noopener noreferrer' } : {}),
        },
      };
    },
    img: (tagName, attribs) => ({
      tagName,
      attribs:
        attribs.src && base
          ? { ...attribs, src: resolveRelative(attribs.src, base.images, base.dir) }
          : attribs,
    }),
    // A page cannot change the document: every box only shows its state.
    input: (tagName, attribs) => ({
      tagName,
      attribs: {
        type: 'checkbox',
        disabled: '',
        ...(attribs.checked === undefined ? {} : { checked: '' }),
        ...(attribs.class ? { class: attribs.class } : {}),
      },
    }),
  };
}

/** The sanitizer's options for a document with `base` (relative URLs in raw HTML resolve too). */
export function allowlist(base: MarkdownBase | undefined): IOptions {
  return {
    allowedTags: TAGS,
    allowedAttributes: ATTRIBUTES,
    allowedClasses: CLASSES,
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesByTag: { img: ['http', 'https'] },
    allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
    allowProtocolRelative: true,
    disallowedTagsMode: 'discard',
    // Their content is code or markup, never prose to keep.
    nonTextTags: [
      'script',
      'style',
      'textarea',
      'option',
      'noscript',
      'iframe',
      'svg',
      'math',
      'template',
      'title',
      'xmp',
      'noembed',
      'noframes',
      'object',
    ],
    transformTags: transforms(base),
    // An image whose source was refused (data:, javascript:) would show as a broken box.
    exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
  };
}
