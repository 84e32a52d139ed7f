import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');

/** The words of package.json's start script: `[NAME=value …] node [flags…] src/main.ts serve`. */
function startWords(): { env: string[]; node: string[] } {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const words = String(pkg.scripts?.start ?? '').split(/\s+/);
  const node = words.indexOf('node');
  const main = words.indexOf('src/main.ts');
  if (node < 0 || main <= node) return { env: [], node: [] };
  return { env: words.slice(0, node), node: words.slice(node + 1, main) };
}

/**
 * The node flags `npm start` passes (whatever sits between `node` and `src/main.ts` in
 * package.json's start script), so a bench measures the server as it is shipped. Relative paths
 * (`--import ./src/…`) are made absolute: npm runs the script from the project root, a bench's
 * child process may not.
 */
export function startFlags(): string[] {
  return startWords().node.map((word) => (word.startsWith('./') ? join(ROOT, word) : word));
}

/** The environment `npm start` sets before `node` (`MALLOC_ARENA_MAX=2`), as an object. */
export function startEnv(): Record<string, string> {
  return Object.fromEntries(
    startWords().env.flatMap((word) => {
      const at = word.indexOf('=');
      return at > 0 ? [[word.slice(0, at), word.slice(at + 1)]] : [];
    }),
  );
}
