// A server in miniature for spawner.test.ts: starts long git commands and prints their pids as
// soon as they are known, so that it is killed while their pipes may still be on their way.
import { spawnGit } from './command.ts';

const procs = Array.from({ length: 5 }, () => spawnGit(['-c', 'alias.x=!sleep 60', 'x']));
while (procs.some((proc) => proc.pid === undefined)) {
  await new Promise((resolve) => setTimeout(resolve, 5));
}
process.stdout.write(`${procs.map((proc) => proc.pid).join(' ')}\n`);
await Promise.all(procs.map((proc) => proc.done.catch(() => {})));
