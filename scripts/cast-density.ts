/**
 * Type assertions (`x as T`, not `as const`) per 1,000 lines of the code Kiln runs: every `.ts`
 * file under src/ but tests and the generated protos. An assertion is a claim the compiler takes
 * on trust, so the figure is kept low (src/architecture.test.ts fails above its ceiling).
 *
 * `node scripts/cast-density.ts` prints the figure; `--list` prints every assertion too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** The ceiling the architecture test holds the figure under. */
export const MAX_CASTS_PER_1000_LINES = 2.5;

/** The lines (1-based) of the type assertions in one source text, `as const` left out. */
export function castLines(text: string): number[] {
  const source = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true);
  const lines: number[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) &&
      !(ts.isTypeReferenceNode(node.type) && node.type.getText(source) === 'const')
    ) {
      lines.push(source.getLineAndCharacterOfPosition(node.type.getStart(source)).line + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}

/** The source files the figure counts, repository-relative. */
export function countedFiles(root: string): string[] {
  return readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.ts$/.test(entry.name) && !/\.d\.ts$/.test(entry.name))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .filter((file) => !file.includes('.test.') && !file.startsWith(join('src', 'gen')))
    .sort();
}

/** Assertions, lines and assertions per 1,000 lines over the counted files of `root`. */
export function castDensity(root: string): {
  casts: { file: string; line: number }[];
  lines: number;
  perThousand: number;
} {
  let lines = 0;
  const casts: { file: string; line: number }[] = [];
  for (const file of countedFiles(root)) {
    const text = readFileSync(join(root, file), 'utf8');
    lines += text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    for (const line of castLines(text)) casts.push({ file, line });
  }
  return { casts, lines, perThousand: (casts.length * 1000) / lines };
}

if (import.meta.main) {
  const { casts, lines, perThousand } = castDensity(resolve(import.meta.dirname, '..'));
  if (process.argv.includes('--list')) {
    for (const { file, line } of casts) console.log(`${file}:${line}`);
  }
  console.log(`${casts.length} casts in ${lines} lines: ${perThousand.toFixed(2)} per 1,000`);
}
