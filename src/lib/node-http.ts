import type * as NodeHttp from 'node:http';

/**
 * Node's `http` module, for code that runs in the server. Kiln's modules take it from here rather
 * than through `import … from 'node:http'`: an ES import of a built-in module builds a namespace
 * of all its exports, and reading `node:http`'s `WebSocket`, `CloseEvent` and `MessageEvent`
 * loads Node's bundled undici (its fetch and WebSocket), about 9 MB resident that a server
 * which never calls `fetch` would hold from start. `process.getBuiltinModule` hands over the
 * module itself, whose lazy exports stay unread. (An architecture test keeps the rule.)
 */
export const http: typeof NodeHttp = process.getBuiltinModule('node:http');

/** `http.Agent`, as a type. */
export type HttpAgent = NodeHttp.Agent;

export type { IncomingMessage, Server, ServerResponse } from 'node:http';
