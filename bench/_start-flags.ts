import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');

/**
 * The node flags `npm start` passes (whatever sits between `node` and `src/main.ts` in
 * package.json's start script), so a bench measures the server as it is shipped. Relative paths
 * (`--import ./src/…`) are made absolute: npm runs the script from the project root, a bench's
 * child process may not.
 */
export function startFlags(): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const words = String(pkg.scripts?.start ?? '').split(/\s+/);
  const main = words.indexOf('src/main.ts');
  if (words[0] !== 'node' || main <= 0) return [];
  return words.slice(1, main).map((word) => (word.startsWith('./') ? join(ROOT, word) : word));
}
