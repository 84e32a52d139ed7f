// A server in miniature for spawner.test.ts: starts a long git command and prints its pid.
import { spawnGit } from './command.ts';

const proc = spawnGit(['-c', 'alias.x=!sleep 60', 'x']);
while (proc.pid === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
process.stdout.write(`${proc.pid}\n`);
await proc.done.catch(() => {});
