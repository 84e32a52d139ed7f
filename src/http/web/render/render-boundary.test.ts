/**
 * Checks the rule stated in content-renderer.ts: no user content is rendered on the main thread.
 * The renderers (markdown-it, highlight.js) may be loaded only by the engine modules, and those
 * only by the render worker, which nothing imports: the pool starts it by file name.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
// sanitize-html parses what markdown-it wrote: as long as its input, so it stays there too.
const RENDERERS = ['highlight.js', 'markdown-it', 'sanitize-html'];
/** Modules that call a renderer, and the only modules that may load them. */
const ENGINES = ['http/web/highlight.ts', 'http/web/markdown.ts'];
const WORKER_SIDE = [...ENGINES, 'http/web/render/render-worker.ts'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'gen' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

// Value imports only: `import type …` is erased and loads nothing.
const VALUE_IMPORT =
  /(?:^|\n)\s*(?:import|export)\s+(?!type\s)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** What a file loads at run time: package names and `src/`-relative paths. */
function loads(file: string): string[] {
  // Comments may show imports as examples; they load nothing.
  const text = readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
  return [...text.matchAll(VALUE_IMPORT)].map((match) => {
    const specifier = match[1] ?? match[2] ?? '';
    return specifier.startsWith('.') ? relative(SRC, resolve(dirname(file), specifier)) : specifier;
  });
}

const graph = sourceFiles(SRC).map((file) => ({ file: relative(SRC, file), loads: loads(file) }));

describe('render boundary', () => {
  it('loads markdown-it and highlight.js only in the engine modules', () => {
    const loaders = graph
      .filter((node) => node.loads.some((target) => RENDERERS.includes(target)))
      .map((node) => node.file);
    expect(loaders.sort()).toEqual([...ENGINES].sort());
  });

  it('loads the engine modules only on the worker side', () => {
    const outside = graph
      .filter((node) => !WORKER_SIDE.includes(node.file))
      .filter((node) => node.loads.some((target) => ENGINES.includes(target)))
      .map((node) => node.file);
    expect(outside).toEqual([]);
  });

  it('starts the worker only through the pool', () => {
    const importers = graph
      .filter((node) => node.loads.includes('http/web/render/render-worker.ts'))
      .map((node) => node.file);
    expect(importers).toEqual([]);
  });
});
