/**
 * The reference the git benches measure Kiln against (not a bench itself: bench/run.ts skips
 * `_*.ts`): git's own `http-backend` behind the plainest Node server that streams.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * `git http-backend` as CGI behind a plain Node HTTP server on 127.0.0.1, streaming both ways,
 * serving every repository under `projectRoot`. Git gets no global or system configuration, as
 * Kiln's git does not.
 */
export function startHttpBackend(projectRoot: string): Promise<{ url: string; close: () => void }> {
  const backend = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://backend');
    const cgi = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_PROJECT_ROOT: projectRoot,
        GIT_HTTP_EXPORT_ALL: '1',
        REMOTE_USER: 'bench',
        REMOTE_ADDR: '127.0.0.1',
        REQUEST_METHOD: request.method ?? 'GET',
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: request.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: request.headers['content-encoding'] ?? '',
        GIT_PROTOCOL: String(request.headers['git-protocol'] ?? ''),
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    request.pipe(cgi.stdin);
    cgi.stdin.on('error', () => {});
    let head: Buffer | undefined = Buffer.alloc(0);
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (!head) {
        if (!response.write(chunk)) cgi.stdout.pause();
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      let status = 200;
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon);
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else response.setHeader(name, value);
      }
      response.writeHead(status);
      const rest = head.subarray(end + 4);
      head = undefined;
      if (!response.write(rest)) cgi.stdout.pause();
    });
    response.on('drain', () => cgi.stdout.resume());
    cgi.stdout.on('end', () => response.end());
  });
  return new Promise((resolve) =>
    backend.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(backend.address() as AddressInfo).port}`,
        close: () => backend.close(),
      }),
    ),
  );
}
