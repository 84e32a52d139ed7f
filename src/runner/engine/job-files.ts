/**
 * Reading, as the runner, a file a confined job controls (a local action's `action.yml`): the job
 * may have put a link to something only the runner can read where the file is expected, and a
 * parse error would then show a piece of it in the log. The file is opened first and judged by
 * what was opened — `/proc/self/fd` names the real file, so no link or swapped directory on the
 * way counts — and read only if it is a regular file with one name inside one of `roots`.
 */
import { constants } from 'node:fs';
import { open, readlink } from 'node:fs/promises';
import { within } from './confinement.ts';

/** The file is not the job's own to hand the runner. */
export class JobFileError extends Error {}

/** The text of `path`, or a JobFileError when it is not a plain file under `roots`. */
export async function readJobFile(path: string, roots: readonly string[]): Promise<string> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const real = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
    const stat = await handle.stat();
    const inside = real !== undefined && roots.some((root) => within(real, root));
    if (!inside || !stat.isFile() || stat.nlink !== 1)
      throw new JobFileError(`${path} is not a file of the job's own`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
