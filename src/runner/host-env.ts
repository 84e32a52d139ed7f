/**
 * The host environment a daemon hands its jobs. Started through npm (`npx kiln runner daemon`,
 * an npm script), the daemon's own environment is npm's, not the host's: npm puts the
 * `node_modules/.bin` of the package and of every folder above it, and its node-gyp shim, in
 * front of `PATH` (Kiln's package brings its own `node` there), and adds `npm_*` variables. Jobs
 * are promised the host's `PATH`, so what npm added is taken out again; the runner's own Node,
 * which JavaScript actions run on, is found by its path and not through `PATH`.
 */
import { delimiter } from 'node:path';

/** Set by npm in every process it starts (npm 7 and later: `npm_command`). */
const NPM_MARKERS = ['npm_command', 'npm_lifecycle_event', 'npm_execpath'];
/** What npm puts in front of PATH. */
const NPM_PATH_ENTRY = /(^|\/)node_modules\/\.bin\/?$|\/node-gyp-bin\/?$/;
/** Variables npm adds besides the `npm_*` ones. */
const NPM_VARIABLES = new Set(['INIT_CWD', 'NODE']);

/** Whether `env` is that of a process npm started. */
export function startedByNpm(env: Record<string, string | undefined>): boolean {
  return NPM_MARKERS.some((key) => env[key] !== undefined);
}

/** `env` without what npm added when npm started the daemon; unchanged otherwise. */
export function hostEnvironment(
  env: Record<string, string | undefined>,
): Record<string, string | undefined> {
  if (!startedByNpm(env)) return env;
  const host: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(env)) {
    if (!key.startsWith('npm_') && !NPM_VARIABLES.has(key)) host[key] = value;
  }
  if (env.PATH !== undefined) {
    host.PATH = env.PATH.split(delimiter)
      .filter((dir) => !NPM_PATH_ENTRY.test(dir))
      .join(delimiter);
  }
  return host;
}
