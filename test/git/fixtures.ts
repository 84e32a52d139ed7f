import http from 'node:http';
import type { User } from '../../src/domain/users/user.types.ts';
import type { TestServer } from '../support/server.ts';

/** Repositories for the git suites, made through the domain service as the REST API would. */
export async function makeRepo(
  kiln: TestServer,
  owner: User,
  options: { name?: string; private?: boolean; autoInit?: boolean; orgName?: string } = {},
): Promise<{ owner: string; name: string }> {
  const name = options.name ?? `repo-${Math.random().toString(36).slice(2, 8)}`;
  const { repo } = await kiln.app.services.repos.create(owner, {
    name,
    private: options.private === true,
    autoInit: options.autoInit === true,
    ...(options.orgName ? { orgName: options.orgName } : {}),
  });
  return { owner: repo.owner.handle, name: repo.name };
}

/** Who asks, in the access matrix of git transports. */
export type Who = 'anonymous' | 'stranger' | 'read' | 'write' | 'admin' | 'owner' | 'org owner';
export type Visibility = 'public' | 'private';

/**
 * Expected status of info/refs for upload-pack (clone) and receive-pack (push) over smart HTTP;
 * every other transport refuses the same cases (404 as a missing repository, 403 as forbidden).
 */
export const ACCESS_MATRIX: Record<Visibility, Record<Who, { clone: number; push: number }>> = {
  public: {
    anonymous: { clone: 200, push: 401 },
    stranger: { clone: 200, push: 403 },
    read: { clone: 200, push: 403 },
    write: { clone: 200, push: 200 },
    admin: { clone: 200, push: 200 },
    owner: { clone: 200, push: 200 },
    'org owner': { clone: 200, push: 200 },
  },
  private: {
    anonymous: { clone: 401, push: 401 },
    stranger: { clone: 404, push: 404 },
    read: { clone: 200, push: 403 },
    write: { clone: 200, push: 200 },
    admin: { clone: 200, push: 200 },
    owner: { clone: 200, push: 200 },
    'org owner': { clone: 200, push: 200 },
  },
};

/** `Authorization` header with the token as Basic password, as git sends it. */
export function basic(token: string): { authorization: string } {
  return { authorization: `Basic ${Buffer.from(`kiln-user:${token}`).toString('base64')}` };
}

/**
 * One HTTP request with the path sent exactly as written: `fetch` would normalise `..` and
 * `%2e%2e` away before the server ever saw them. Resolves to the status (0 when the server
 * dropped the connection).
 */
export function rawRequest(
  base: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<number> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    const request = http.request(
      { host: hostname, port, path, method: init.method ?? 'GET', headers: init.headers },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', () => resolve(0));
    request.end(init.body);
  });
}
