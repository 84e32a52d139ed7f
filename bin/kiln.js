#!/bin/sh
true /*
n="$(dirname "$(readlink -f "$0")")/../node_modules/node/bin/node"
[ -x "$n" ] || n=node
exec "$n" "$0" "$@"
*/

// The `kiln` command. The lines above are for the shell and a comment for JavaScript:
// run as a command (through npm's link in node_modules/.bin, or a link on PATH), the shell
// hands this file to the bundled Node 24 straight away, whatever `node` PATH holds; run as
// `node bin/kiln.js`, it is plain JavaScript, so that any Node from 20 on runs it. Either way
// it then starts Kiln on the Node 24 the installation brings (the `node` package, found next to
// this file rather than on PATH), with the memory settings Kiln is measured and shipped with.
//
// This file is the one place those settings are written down: `npm start`, the systemd unit and
// the benches all go through it (bench/_start-flags.ts reads the lists below).
//
// Where the running Node can replace itself (`process.execve`, Node 22.15 and later; the
// bundled 24 can) the launcher becomes Kiln: one process, so signals, the exit code and the
// memory are Kiln's own. An older Node (20, running `node bin/kiln.js`) starts Kiln as a child
// instead and stays as a parent (about 40 MB) that passes SIGTERM, SIGINT and SIGHUP on and
// exits with the child's code.
import { spawn } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * V8 flags Kiln runs with (docs/deployment.md → Memory says why each is there). They must be on
 * the command line: NODE_OPTIONS refuses `--initial-old-space-size`.
 */
export const NODE_FLAGS = ['--max-semi-space-size=2', '--initial-old-space-size=64'];

/** Environment Kiln runs with unless the caller already set it (the C library reads it at start). */
export const NODE_ENV = { MALLOC_ARENA_MAX: '2' };

/** Loaded before src/main.ts so that Node's compile cache also covers main.ts (see that file). */
export const PRELOAD = join(ROOT, 'src', 'start-up.js');
export const MAIN = join(ROOT, 'src', 'main.ts');

/** The bundled Node 24: the `node` package's binary, wherever npm put that package. */
export function bundledNode() {
  const require = createRequire(join(ROOT, 'package.json'));
  try {
    return join(dirname(require.resolve('node/package.json')), 'bin', 'node');
  } catch {
    return join(ROOT, 'node_modules', 'node', 'bin', 'node');
  }
}

/** The command line (program, arguments) and environment that run Kiln with `args`. */
export function kilnCommand(args, env = process.env) {
  return {
    program: bundledNode(),
    args: [...NODE_FLAGS, '--import', PRELOAD, MAIN, ...args],
    env: { ...NODE_ENV, ...env },
  };
}

function launch() {
  const { program, args, env } = kilnCommand(process.argv.slice(2));
  if (!existsSync(program)) {
    process.stderr.write(
      `kiln: the bundled Node.js is missing (${program}); run \`npm install\` in ${ROOT}\n`,
    );
    process.exit(1);
  }
  if (typeof process.execve === 'function') {
    process.execve(program, [program, ...args], env);
  }
  const child = spawn(program, args, { env, stdio: 'inherit' });
  const forward = (signal) => child.kill(signal);
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, forward);
  child.on('error', (error) => {
    process.stderr.write(`kiln: cannot start ${program}: ${error.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    if (signal) {
      // Died of a signal: die of the same one, so whoever started us sees what happened.
      for (const name of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.removeListener(name, forward);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
}

// Imported (by bench/_start-flags.ts) it only exports; run as a command (through npm's link in
// node_modules/.bin, or directly) it launches.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) launch();
