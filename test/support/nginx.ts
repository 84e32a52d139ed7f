import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';

/** The nginx binary, where Debian puts it; undefined when nginx is not installed. */
export const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((path) => existsSync(path));

/**
 * nginx in the foreground, one process, everything it writes inside `dir`, listening on
 * 127.0.0.1:`port`: `http` lines go into its `http` block, `server` lines into its one server.
 * Resolves once it answers a request; throws with its error log if it has not within 10 s.
 */
export async function startNginx(
  dir: string,
  port: number,
  lines: { readonly http?: string; readonly server: string },
): Promise<ChildProcess> {
  if (NGINX === undefined) throw new Error('nginx is not installed');
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'];
  for (const kind of temp) mkdirSync(join(dir, kind), { recursive: true });
  const config = join(dir, 'nginx.conf');
  writeFileSync(
    config,
    `daemon off;
master_process off;
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events {}
http {
  access_log off;
${temp.map((kind) => `  ${kind}_temp_path ${join(dir, kind)};`).join('\n')}
${lines.http ?? ''}
  server {
    listen 127.0.0.1:${port};
${lines.server}
  }
}
`,
  );
  const child = spawn(NGINX, ['-p', dir, '-e', join(dir, 'error.log'), '-c', config], {
    stdio: 'ignore',
  });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const probe = request({ host: '127.0.0.1', port, path: '/', method: 'GET' }, (response) => {
        response.resume();
        resolve(true);
      });
      probe.on('error', () => resolve(false));
      probe.end();
    });
    if (up) return child;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      const log = existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log')) : '';
      throw new Error(`nginx did not start: ${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
