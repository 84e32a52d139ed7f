import type { FastifyInstance } from 'fastify';

/** A route as Fastify registered it: `GET /api/v1/repos/:owner/:name`. */
export type RegisteredRoute = { readonly method: string; readonly url: string };

const LINE = /^([│ ]*)(?:├── |└── )(.*?) \(([A-Z, ]+)\)$/u;
const ROOT = /^└── (.*?) \(([A-Z, ]+)\)$/u;

/**
 * Every route of a built server, read from `printRoutes()`: the tree prints each node as the
 * part of the URL it adds to its parent, indented four columns per level, with its methods in
 * parentheses. HEAD is left out (Fastify adds it to every GET).
 */
export function registeredRoutes(server: FastifyInstance): RegisteredRoute[] {
  const lines = server.printRoutes({ commonPrefix: false }).split('\n');
  const stack: string[] = [];
  const routes: RegisteredRoute[] = [];
  for (const line of lines) {
    if (line.trim() === '') continue;
    const root = ROOT.exec(line);
    const match = root ? ['', '', root[1], root[2]] : LINE.exec(line);
    if (!match) throw new Error(`cannot read route line: ${line}`);
    const depth = root ? 0 : ((match[1] ?? '').length + 4) / 4;
    stack.length = depth;
    stack.push(match[2] ?? '');
    const url = stack.join('');
    for (const method of (match[3] ?? '').split(', ')) {
      if (method !== 'HEAD') routes.push({ method, url });
    }
  }
  return routes;
}
