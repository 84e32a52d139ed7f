import { constants } from 'node:fs';
import { access } from 'node:fs/promises';

/** Resolves when this process may read and write `dir`; rejects with the system's reason. */
export function probeReadWrite(dir: string): Promise<void> {
  return access(dir, constants.R_OK | constants.W_OK);
}
