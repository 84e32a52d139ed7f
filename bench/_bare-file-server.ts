/**
 * Shared by the transfer benches (not a bench itself: bench/run.ts skips `_*.ts`): a bare Node
 * HTTP server in a process of its own that answers every GET with one file, read in 1 MiB
 * chunks and piped to the response. What any Node server reaches on this machine, reported
 * beside Kiln's downloads so a baseline that no socket reaches (`cat` within the page cache)
 * is read for what it is.
 */
import { spawn } from 'node:child_process';

const SERVER = `
import { createServer } from 'node:http';
import { createReadStream, statSync } from 'node:fs';
const path = process.argv[1];
const server = createServer((request, response) => {
  response.writeHead(200, { 'content-length': statSync(path).size });
  createReadStream(path, { highWaterMark: 1 << 20 }).pipe(response);
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

/** Starts the server for `path`; its URL and how to stop it. */
export async function startBareFileServer(
  path: string,
): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', SERVER, path], {
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
  return { url: `http://127.0.0.1:${said.trim()}/`, stop: () => child.kill('SIGTERM') };
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
