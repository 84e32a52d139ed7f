/**
 * Real `kiln serve` processes on 127.0.0.1 for the federation benches, started as `npm start`
 * starts Kiln (a base URL each, private addresses allowed so they reach one another): each data
 * dir is seeded in this process first, then served by a child that is killed at the end
 * (`BENCH_STDERR=1` shows the children's error output).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { App } from '../src/app.ts';
import { freePort } from '../test/support/free-port.ts';
import { startEnv, startFlags } from './_start-flags.ts';

/** Where the servers live: a temporary root, and the children to kill when done. */
export type ServerPlace = { readonly root: string; readonly children: Set<ChildProcess> };

/**
 * A data dir `name` under the root, seeded by `seed` (with the app built on it, closed after),
 * then a `kiln serve` on it; resolves once it prints its listening line. `env` adds to (or
 * overrides) the federation settings every server here gets.
 */
export async function seededServer<T>(
  place: ServerPlace,
  name: string,
  options: { readonly env?: Record<string, string> },
  seed: (app: App) => Promise<T>,
): Promise<{ url: string; child: ChildProcess; seeded: T }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = {
    SERVICE_DATA_DIR: join(place.root, name),
    SERVICE_HTTP_PORT: String(port),
    SERVICE_BASE_URL: url,
    SERVICE_SECRET_KEY: 'federation bench secret key',
    SERVICE_FEDERATION_ALLOW_PRIVATE_ADDRESSES: 'true',
    SERVICE_PROTECT_ENABLED: 'false',
    // No bench here uses SSH, and a fixed SSH port would collide between the two servers.
    SERVICE_SSH_ENABLED: 'false',
    ...options.env,
  };
  const { createApp } = await import('../src/app.ts');
  const { loadConfig } = await import('../src/config/load.ts');
  writeFileSync(join(place.root, 'none.toml'), '');
  const app = await createApp(
    loadConfig({
      file: join(place.root, 'none.toml'),
      env: { ...env, SERVICE_LOG_LEVEL: 'silent' },
    }),
  );
  const seeded = await seed(app);
  await app.close();
  const child = spawn(process.execPath, [...startFlags(), 'src/main.ts', 'serve'], {
    cwd: join(import.meta.dirname, '..'),
    env: { ...process.env, ...startEnv(), ...env },
    stdio: ['ignore', 'pipe', process.env.BENCH_STDERR ? 'inherit' : 'ignore'],
  });
  place.children.add(child);
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('no listening line within 30 s')), 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (/listening on/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before listening`)));
  });
  return { url, child, seeded };
}

/** git in `cwd`, without blocking this process (servers or sinks here must keep answering). */
export async function benchGit(root: string, cwd: string, ...argv: string[]): Promise<void> {
  await promisify(execFile)('git', argv, {
    cwd,
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', HOME: root },
  });
}
