/**
 * What the suites on CI input caps share: a latency probe that calls `GET /api/v1/version` in a
 * loop while a hostile input is sent, raw HTTP posts to `/api/actions`, and a repository whose
 * pushes start runs.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { expect } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { makeRepo } from '../git/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
import type { TestServer } from '../support/server.ts';

/**
 * Runs `work` while another loop calls `GET /api/v1/version`, and checks that the server kept
 * answering it (what is asserted is that it answers, not how fast: timing is the bench's).
 */
export async function whileProbing<T>(kiln: TestServer, work: () => Promise<T>): Promise<T> {
  let stop = false;
  const statuses: number[] = [];
  const probe = (async () => {
    while (!stop) {
      const response = await fetch(`${kiln.url}/api/v1/version`);
      await response.arrayBuffer();
      statuses.push(response.status);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  try {
    return await work();
  } finally {
    stop = true;
    await probe;
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((status) => status === 200)).toBe(true);
  }
}

export type RawAnswer = { status: number; body: { code?: string; message?: string } };

/** POSTs `body` to a runner procedure as it is, with `headers` (binary content type added). */
export function postActions(
  kiln: TestServer,
  procedure: string,
  body: Buffer,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const sent = request(
      `${kiln.url}/api/actions/${procedure}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/proto', 'content-length': body.length, ...headers },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'),
          }),
        );
      },
    );
    // The server may answer and close before the whole body is sent.
    sent.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    sent.end(body);
  });
}

/**
 * Sends only the head of a POST that declares `declared` body bytes and never sends one; answers
 * the status line and body the server sends anyway.
 */
export function headOnly(
  kiln: TestServer,
  procedure: string,
  declared: number,
  headers: Record<string, string> = {},
): Promise<string> {
  const { hostname, port } = new URL(kiln.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      const lines = [
        `POST /api/actions/${procedure} HTTP/1.1`,
        `Host: ${hostname}:${port}`,
        'Content-Type: application/proto',
        `Content-Length: ${declared}`,
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      ];
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('utf8');
      // The whole answer is in once its JSON body has closed.
      if (text.includes('\r\n\r\n') && text.trimEnd().endsWith('}')) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('error', reject);
    socket.setTimeout(10_000, () => {
      socket.destroy();
      reject(new Error(`no answer without the body: ${JSON.stringify(text)}`));
    });
  });
}

/** A repository of `owner` with a work tree; `push` commits files to `main` and pushes them. */
export async function ciProject(kiln: TestServer, git: GitClient, owner: User, token: string) {
  const { name } = await makeRepo(kiln, owner);
  const dir = await git.init();
  const url = repoUrl(kiln.url, owner.handle, name, { token, as: 'password' });
  const { repo } = await kiln.app.services.repos.get(owner, owner.handle, name);
  const runs = () =>
    kiln.app.database.db
      .selectFrom('workflow_runs')
      .selectAll()
      .where('repo_id', '=', repo.id)
      .orderBy('number')
      .execute();
  return {
    repoId: repo.id,
    runs,
    async push(files: Record<string, string>) {
      await git.commit(dir, files);
      await git.ok(['push', '-q', url, 'HEAD:refs/heads/main'], { cwd: dir });
    },
    async runsSettle(count: number) {
      await eventually(async () => (await runs()).length >= count, 20_000);
      return runs();
    },
  };
}

/** A workflow of one job whose matrix makes `count` jobs for runners labelled `label`. */
export function matrixWorkflow(label: string, count: number): string {
  const values = Array.from({ length: count }, (_, at) => at).join(', ');
  return `on: push\njobs:\n  j:\n    runs-on: ${label}\n    strategy:\n      matrix:\n        n: [${values}]\n    steps: [{run: x}]\n`;
}
