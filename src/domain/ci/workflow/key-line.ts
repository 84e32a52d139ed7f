import type { Document } from 'yaml';
import { loadOnFirstUse } from '../../../lib/load-on-first-use.ts';

/** The YAML library, loaded with the first workflow parsed (as workflow-parse.ts loads it). */
const yaml = loadOnFirstUse<typeof import('yaml')>('yaml');

/** The 1-based line of a key path in the document, when it can be found. */
export function keyLine(document: Document, content: string, path: string[]): number | undefined {
  let node: unknown = document.contents;
  let offset: number | undefined;
  for (const key of path) {
    if (!yaml().isMap(node)) return offset === undefined ? undefined : lineAt(content, offset);
    const pair = node.items.find(
      (item) => String((item.key as { value?: unknown })?.value) === key,
    );
    if (pair === undefined) return undefined;
    offset = (pair.key as { range?: [number, number, number] }).range?.[0];
    node = pair.value;
  }
  return offset === undefined ? undefined : lineAt(content, offset);
}

function lineAt(content: string, offset: number): number {
  let line = 1;
  for (let at = 0; at < offset && at < content.length; at++) if (content[at] === '\n') line++;
  return line;
}
