import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The node flags `npm start` passes (whatever sits between `node` and `src/main.ts` in
 * package.json's start script), so a bench measures the server as it is shipped.
 */
export function startFlags(): string[] {
  const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8'));
  const words = String(pkg.scripts?.start ?? '').split(/\s+/);
  const main = words.indexOf('src/main.ts');
  return words[0] === 'node' && main > 0 ? words.slice(1, main) : [];
}
