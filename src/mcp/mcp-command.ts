import { readFileSync } from 'node:fs';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { type Logger, pino } from 'pino';
import type { Config } from '../config/config.ts';
import { Invalid, Unauthenticated } from '../domain/errors.ts';
import type { DomainServices } from '../domain/services.ts';
import { buildMcpServer, type McpServices } from './mcp-server.ts';

/** What `kiln mcp` runs on: the tools' services and the token check, released by `close`. */
export type McpHost = {
  readonly services: McpServices & Pick<DomainServices, 'tokens'>;
  close(): Promise<void>;
};

export type McpOptions = {
  /** Opens the services (the composition root, with the same configuration as `serve`). */
  readonly open: (config: Config) => Promise<McpHost>;
  /** `--token-file PATH`: wins over the environment when given. */
  readonly tokenFile?: string | undefined;
  /** Where `KILN_TOKEN` is read from. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Called once the tools are being served on stdio. */
  readonly onReady?: () => void;
};

/** The personal access token to act with, from the file or `KILN_TOKEN`, trimmed. */
export function readToken(options: McpOptions): string {
  let token: string | undefined;
  if (options.tokenFile !== undefined) {
    try {
      token = readFileSync(options.tokenFile, 'utf8');
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Invalid(`cannot read the token file: ${reason}`);
    }
  } else {
    token = options.env.KILN_TOKEN;
  }
  token = token?.trim();
  if (!token) {
    throw new Unauthenticated(
      options.tokenFile !== undefined
        ? `the token file ${options.tokenFile} is empty`
        : 'no access token: set KILN_TOKEN or pass --token-file PATH',
    );
  }
  return token;
}

/** Logs go to stderr: stdout carries protocol messages and nothing else. */
function stderrLogger(config: Config): Logger {
  return pino(
    { level: config.logLevel, base: { surface: 'mcp' } },
    pino.destination({ fd: 2, sync: true }),
  );
}

/** Resolves once the client is gone (stdin ended, stdout broken) or a signal asks to stop. */
function stopped(): Promise<string> {
  return new Promise((resolve) => {
    process.stdin.once('end', () => resolve('stdin closed'));
    process.stdout.once('error', () => resolve('stdout closed'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
}

/** How long running calls get to answer once the client has gone. */
const DRAIN_LIMIT_MS = 10_000;

/** Waits for running tool calls (bounded), then one more turn for their answers to be written. */
async function drain(inFlight: Set<Promise<unknown>>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, DRAIN_LIMIT_MS);
  });
  const settled = (async () => {
    while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
  })();
  await Promise.race([settled, limit]);
  clearTimeout(timer);
  await new Promise((resolve) => setImmediate(resolve));
}

/**
 * `kiln mcp`: serves the MCP tools over stdio as the owner of a personal access token, with the
 * same configuration (data dir, database) as `serve`. A missing or unknown token stops it before
 * it speaks a word of protocol. Returns when the client goes away, after letting running tool
 * calls answer.
 */
export async function runMcp(config: Config, options: McpOptions): Promise<void> {
  const token = readToken(options);
  const log = stderrLogger(config);
  const host = await options.open(config);
  try {
    const caller = async () => {
      const holder = await host.services.tokens.authenticate(token);
      if (!holder) throw new Unauthenticated('the access token is invalid or revoked');
      return holder;
    };
    const { user } = await caller();
    const inFlight = new Set<Promise<unknown>>();
    const server = buildMcpServer(host, caller, log, inFlight);
    const stop = stopped();
    await server.connect(new StdioServerTransport());
    log.info({ user: user.handle }, 'serving MCP tools on stdio');
    options.onReady?.();
    const reason = await Promise.race([
      stop,
      new Promise<string>((resolve) => {
        server.server.onclose = () => resolve('transport closed');
      }),
    ]);
    log.info({ reason }, 'stopping');
    await drain(inFlight);
    await server.close();
    process.stdin.destroy();
  } finally {
    await host.close();
  }
}
