import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { PRIVATE_DIR_MODE, tightenDataDir } from '../lib/private-modes.ts';
import { warn } from './command.ts';

/**
 * For `serve`, `migrate` and `restore`: the data directory made (0700) if it is missing, and
 * whatever in it lets group or others in tightened (lib/private-modes.ts), with one warning line
 * saying how much and where, since something widened it and an operator should know what.
 */
export async function privateDataDir(dataDir: string): Promise<string> {
  const dir = resolve(dataDir);
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const changed = await tightenDataDir(dir);
  if (changed.length > 0) {
    const first = changed[0]!;
    warn(
      `took group and other access off ${changed.length} path(s) in the data directory, ${first.path} (${first.mode.toString(8)}) first: it is private to Kiln's user`,
    );
  }
  return dir;
}
