import type { HLJSApi } from 'highlight.js';
import { lazily } from '../../lib/lazily.ts';
import { escapeHtml } from './html.ts';
import { linesOf } from './render/plain-text.ts';

/** highlight.js with all its languages, loaded on first use so start-up stays quick. */
export const loadHighlighter: () => Promise<HLJSApi> = lazily(() =>
  import('highlight.js').then((module) => module.default),
);

const BY_NAME: Record<string, string> = {
  dockerfile: 'dockerfile',
  makefile: 'makefile',
  gnumakefile: 'makefile',
  'cmakelists.txt': 'cmake',
  gemfile: 'ruby',
  rakefile: 'ruby',
  jenkinsfile: 'groovy',
};

/** The highlight.js language for a file name, by well-known name or by extension. */
export function languageFor(hljs: HLJSApi, fileName: string): string | undefined {
  const lower = fileName.toLowerCase();
  const named = BY_NAME[lower];
  if (named && hljs.getLanguage(named)) return named;
  const dot = lower.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const extension = lower.slice(dot + 1);
  return hljs.getLanguage(extension) ? extension : undefined;
}

const TAG = /<span class="([^"]*)">|<\/span>/g;

/**
 * Splits highlight.js output into lines that are each well-formed: spans still open at a line
 * break (a multi-line comment or string) are closed at its end and reopened on the next line,
 * so every line can sit in its own table row.
 */
export function splitHighlightedLines(markup: string): string[] {
  const lines: string[] = [];
  const open: string[] = [];
  for (const raw of markup.split('\n')) {
    let line = open.map((cls) => `<span class="${cls}">`).join('') + raw;
    TAG.lastIndex = 0;
    for (let match = TAG.exec(raw); match !== null; match = TAG.exec(raw)) {
      if (match[1] !== undefined) open.push(match[1]);
      else open.pop();
    }
    line += '</span>'.repeat(open.length);
    lines.push(line);
  }
  return lines;
}

/**
 * A text file as lines of safe markup, coloured when its language is known, otherwise just
 * escaped. highlight.js escapes the source itself and adds only spans. Some of its grammars are
 * superlinear on crafted input: pages reach it only through the render pool
 * (render/content-renderer.ts).
 */
export async function highlightLines(fileName: string, text: string): Promise<string[]> {
  const hljs = await loadHighlighter();
  const language = languageFor(hljs, fileName);
  if (!language) return linesOf(text).map(escapeHtml);
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  const { value } = hljs.highlight(body, { language, ignoreIllegals: true });
  return splitHighlightedLines(value);
}
