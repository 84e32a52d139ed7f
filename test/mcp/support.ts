import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { findRef } from '../../src/git/refs.ts';
import { commitFiles } from '../../src/git/test-support.ts';
import { MAIN } from '../support/cli.ts';
import type { Json } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';

/** What `kiln mcp` needs to find the test server's data: the same data dir and database. */
export function mcpEnv(kiln: TestServer): Record<string, string> {
  const { databaseUrl } = kiln.app.config;
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    SERVICE_DATA_DIR: kiln.app.dataDir,
    SERVICE_LOG_LEVEL: 'debug',
    ...(databaseUrl ? { SERVICE_DATABASE_URL: databaseUrl } : {}),
  };
}

export type McpSession = {
  readonly client: Client;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** Transport errors, such as a stdout line that is not a protocol message. */
  readonly errors: Error[];
  close(): Promise<void>;
};

/**
 * Starts the real `node src/main.ts mcp` as a subprocess and connects the SDK's stdio client to
 * it. Runs in the data dir, so no stray ./service.toml is read.
 */
export async function connectMcp(
  kiln: TestServer,
  options: { token?: string; args?: string[]; env?: Record<string, string> } = {},
): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, 'mcp', ...(options.args ?? [])],
    env: {
      ...mcpEnv(kiln),
      ...(options.token !== undefined ? { KILN_TOKEN: options.token } : {}),
      ...options.env,
    },
    cwd: kiln.dataDir,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const errors: Error[] = [];
  const client = new Client({ name: 'kiln-test', version: '1.0.0' });
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  return { client, errors, stderr: () => stderr, close: () => client.close() };
}

export type ToolAnswer = {
  readonly isError: boolean;
  readonly structured: Json;
  /** The first text block: the JSON of the record, or the error message. */
  readonly text: string;
};

/** Calls a tool and checks that the text block is the JSON of the structured content. */
export async function callTool(
  session: McpSession,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolAnswer> {
  const result = await session.client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text?: string }[];
  const text = content[0]?.type === 'text' ? (content[0].text ?? '') : '';
  const isError = result.isError === true;
  if (!isError && JSON.stringify(result.structuredContent) !== text) {
    throw new Error(`${name}: text block is not the JSON of the structured content`);
  }
  return { isError, structured: result.structuredContent, text };
}

/** A REST record with every URL built from the request base replaced by null, as MCP shows it. */
export function withNullUrls(value: Json, base: string): Json {
  if (typeof value === 'string') return value.startsWith(`${base}/`) ? null : value;
  if (Array.isArray(value)) return value.map((item) => withNullUrls(item, base));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      // MCP knows no host: the SSH clone URL, named by host rather than base URL, is empty there.
      Object.entries(value).map(([key, item]) =>
        key === 'ssh_url' ? [key, ''] : [key, withNullUrls(item, base)],
      ),
    );
  }
  return value;
}

/**
 * Commits files on a branch straight into the bare repository; a missing branch starts from
 * the tip of `main`.
 */
export async function commitTo(
  kiln: TestServer,
  owner: string,
  name: string,
  branch: string,
  files: Record<string, string>,
): Promise<string> {
  const handle = kiln.app.git.paths.resolve({ owner, name });
  const tip = await findRef(handle, `refs/heads/${branch}`);
  const main = await findRef(handle, 'refs/heads/main');
  return commitFiles(handle.path, {
    branch,
    files,
    time: Math.floor(Date.now() / 1000),
    ...(tip === undefined && main !== undefined ? { parents: [main] } : {}),
  });
}
