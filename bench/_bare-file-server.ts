/**
 * Shared by the transfer benches (not a bench itself: bench/run.ts skips `_*.ts`): a bare Node
 * HTTP server in a process of its own that answers every GET with one file, read in 1 MiB
 * chunks and piped to the response, and reads every PUT's body to the end and drops it, or under
 * `/write/` writes it to a file of its own with Kiln's gathered writes (src/storage). What any
 * Node server reaches on this machine, reported beside Kiln's transfers so a baseline that no
 * socket reaches (`cat` or `cp` within the page cache) is read for what it is.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { freePort } from '../test/support/free-port.ts';
import { NGINX, startNginx } from '../test/support/nginx.ts';

const GATHERED_WRITE = new URL('../src/storage/gathered-write.ts', import.meta.url).href;

const SERVER = `
import { createServer } from 'node:http';
import { createReadStream, constants, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { writeGathered } from '${GATHERED_WRITE}';
const [path, writes] = process.argv.slice(1);
let written = 0;
const server = createServer(async (request, response) => {
  if (request.method === 'PUT' && request.url.startsWith('/write/')) {
    const file = await open(writes + '/' + written++, constants.O_RDWR | constants.O_CREAT, 0o600);
    await writeGathered(file, 0, request);
    await file.close();
    response.writeHead(201).end();
    return;
  }
  if (request.method === 'PUT') {
    request.resume();
    request.once('end', () => response.writeHead(204).end());
    return;
  }
  response.writeHead(200, { 'content-length': statSync(path).size });
  createReadStream(path, { highWaterMark: 1 << 20 }).pipe(response);
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

/** Starts the server for `path`; its URL and how to stop it (which removes what it wrote). */
export async function startBareFileServer(
  path: string,
): Promise<{ url: string; stop: () => void }> {
  const writes = mkdtempSync(join(tmpdir(), 'kiln-bench-bare-'));
  const child = spawn(process.execPath, ['--input-type=module', '-e', SERVER, path, writes], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let said = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    said += chunk;
  });
  while (!said.includes('\n')) {
    if (child.exitCode !== null) throw new Error('the bare file server did not start');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    url: `http://127.0.0.1:${said.trim()}/`,
    stop: () => {
      child.kill('SIGTERM');
      rmSync(writes, { recursive: true, force: true });
    },
  };
}

/**
 * nginx, one process in the foreground, serving `path` with `sendfile` (the kernel copies the
 * page cache into the socket, no copy in user space at all) and taking WebDAV `PUT`s under
 * `/put/` into files of its own (written to a temporary file, then renamed, as Kiln does, but
 * hashing nothing): the most an HTTP server in C gets through a socket on this machine,
 * reported beside Kiln's transfers. Undefined without nginx.
 */
export async function startNginxFileServer(
  path: string,
): Promise<{ url: string; putUrl: (name: string) => string; stop: () => void } | undefined> {
  if (NGINX === undefined) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'kiln-bench-nginx-'));
  const port = await freePort();
  const server = `    root ${dirname(path)};
    location /put/ {
      root ${dir};
      dav_methods PUT;
      create_full_put_path on;
      client_max_body_size 0;
      client_body_buffer_size 1m;
    }`;
  let child: ChildProcess;
  try {
    child = await startNginx(dir, port, { http: '  sendfile on;\n  tcp_nopush on;', server });
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  return {
    url: `http://127.0.0.1:${port}/${basename(path)}`,
    putUrl: (name) => `http://127.0.0.1:${port}/put/${name}`,
    stop: () => {
      child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Wall time in seconds of `curl` downloading `url` to nowhere; throws unless it answered 200. */
export async function curlDownload(url: string, headers: readonly string[] = []): Promise<number> {
  const started = process.hrtime.bigint();
  const status = await new Promise<string>((resolve, reject) => {
    const args = ['-sS', '-o', '/dev/null', '-w', '%{http_code}'];
    for (const header of headers) args.push('-H', header);
    const child = spawn('curl', [...args, url], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', () => resolve(out));
  });
  if (status !== '200') throw new Error(`download answered ${status}`);
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** Wall time in seconds of `curl` PUTting `file` to `url`; throws unless it answered 201 or 204. */
export async function curlUpload(url: string, file: string): Promise<number> {
  const started = process.hrtime.bigint();
  const status = await new Promise<string>((resolve, reject) => {
    const args = ['-sS', '-o', '/dev/null', '-w', '%{http_code}', '-T', file, url];
    const child = spawn('curl', args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', () => resolve(out));
  });
  if (status !== '201' && status !== '204') throw new Error(`upload answered ${status}`);
  return Number(process.hrtime.bigint() - started) / 1e9;
}
