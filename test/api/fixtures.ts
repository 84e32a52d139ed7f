import { commitFiles, git } from '../../src/git/test-support.ts';
import { auth, type Json, json } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { checkGiteaResponse } from './gitea-swagger.ts';

/** A person with a token and a fetch helper that sends it. */
export type Caller = {
  readonly handle: string;
  readonly email: string;
  readonly token: string;
};

/**
 * `fetch` against `/api/v1` with an optional token and JSON body; each JSON response is checked
 * against Gitea's swagger (see gitea-swagger.ts) before the test sees it.
 */
export function apiClient(kiln: TestServer) {
  return async (
    path: string,
    options: {
      token?: string;
      method?: string;
      body?: unknown;
      headers?: Record<string, string>;
    } = {},
  ): Promise<Response> => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) Object.assign(headers, auth.token(options.token));
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    }
    const method = options.method ?? 'GET';
    const response = await fetch(`${kiln.url}/api/v1${path}`, { method, headers, body });
    // Every JSON answer of these suites is held against Gitea's swagger on the way past.
    if (response.headers.get('content-type')?.includes('application/json')) {
      checkGiteaResponse(method, path, response.status, await response.clone().json());
    }
    return response;
  };
}

export async function caller(kiln: TestServer, fullName = ''): Promise<Caller> {
  const { user } = await kiln.make.user({ fullName });
  const token = await kiln.make.token(user);
  return { handle: user.handle, email: user.email, token };
}

/** Creates a repository over the API and returns its Repository object. */
export async function createRepo(
  kiln: TestServer,
  owner: Caller,
  name: string,
  options: { autoInit?: boolean; private?: boolean } = {},
): Promise<Json> {
  const response = await apiClient(kiln)('/user/repos', {
    token: owner.token,
    method: 'POST',
    body: { name, auto_init: options.autoInit ?? true, private: options.private ?? false },
  });
  if (response.status !== 201) throw new Error(`create repo: ${response.status}`);
  return json(response);
}

/** The bare repository's directory, for writing commits straight into it. */
export function gitDirOf(kiln: TestServer, owner: string, name: string): string {
  return kiln.app.git.paths.resolve({ owner, name }).path;
}

/** Adds a commit on `branch` (made when missing) and returns its sha. */
export function addCommit(
  kiln: TestServer,
  owner: string,
  name: string,
  branch: string,
  options: {
    files?: Record<string, string>;
    author?: string;
    message?: string;
    time?: number;
  } = {},
): Promise<string> {
  return commitFiles(gitDirOf(kiln, owner, name), {
    branch,
    files: options.files ?? { [`file-${Math.random().toString(36).slice(2)}.txt`]: 'x\n' },
    ...(options.author ? { author: options.author } : {}),
    ...(options.message ? { message: options.message } : {}),
    ...(options.time ? { time: options.time } : {}),
  });
}

/** Makes a lightweight tag at a commit. */
export async function addTag(
  kiln: TestServer,
  owner: string,
  name: string,
  tag: string,
  sha: string,
) {
  await git(['update-ref', `refs/tags/${tag}`, sha], { gitDir: gitDirOf(kiln, owner, name) });
}
