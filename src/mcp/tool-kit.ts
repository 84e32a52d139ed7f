import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Page } from '../domain/paging.ts';
import type { DomainServices } from '../domain/services.ts';
import type { TokenHolder } from '../domain/tokens/token.service.ts';
import { requireScopes, type ScopeCategory } from '../domain/tokens/token-scopes.ts';
import type { User } from '../domain/users/user.types.ts';
import type { ConvertContext } from '../present/context.ts';
import type { PullViews } from '../present/pull-views.ts';
import type { RepoViews } from '../present/repo-views.ts';
import { errorResult } from './mcp-errors.ts';

/**
 * What every tool works with: the services it names (`ToolKit<'pulls' | 'users'>`), the token's
 * owner and the shared view loaders. `addTool` needs none of the services.
 */
export type ToolKit<Used extends keyof DomainServices = never> = {
  readonly server: McpServer;
  readonly services: Pick<DomainServices, Used>;
  /**
   * The owner of the personal access token and its scopes, looked up again for every call, so
   * that a revoked or expired token stops working at once, as it does over REST.
   */
  readonly caller: () => Promise<TokenHolder>;
  /** No request, so no base URL: every URL field of a record is null (SPEC.md). */
  readonly context: ConvertContext;
  readonly repoViews: RepoViews;
  readonly pullViews: PullViews;
  readonly log: Logger;
  /** Tool calls still running, so that shutting down can let them answer first. */
  readonly inFlight: Set<Promise<unknown>>;
};

export const DEFAULT_LIMIT = 30;
/** The REST API's cap on a page (SPEC.md → Limits). */
export const MAX_LIMIT = 50;

const text = (what: string) => z.string().min(1).max(200).describe(what);

/** `owner` and `repo`, which address a repository in every tool that works on one. */
export const repoArgs = {
  owner: text('Handle of the user or organisation that owns the repository, e.g. "alice"'),
  repo: text('Name of the repository, e.g. "website"'),
};

const pullNumberArg = z
  .number()
  .int()
  .min(1)
  .max(Number.MAX_SAFE_INTEGER)
  .describe('The pull request number within the repository (its `number`, not its `id`)');

/** {@link repoArgs} and `number`, which address a pull request in every tool that works on one. */
export const pullArgs = { ...repoArgs, number: pullNumberArg };

export const pagingArgs = {
  page: z.number().int().min(1).max(1_000_000).optional().describe('1-based page; default 1'),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`Items per page; default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT} (more is capped)`),
};

export type Paging = Page & { readonly page: number };

/** The page asked for, with the limit capped as the REST API caps it. */
export function pagingOf(args: { page?: number | undefined; limit?: number | undefined }): Paging {
  const limit = Math.min(args.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
  const page = args.page ?? 1;
  return { page, limit, offset: (page - 1) * limit };
}

/** A record as structured content, and the same JSON as text for clients that read only text. */
export function recordResult(record: object): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(record) }],
    structuredContent: record as Record<string, unknown>,
  };
}

/**
 * A page of records. Structured content must be an object, so the list sits in `items`, with
 * the total over all pages and the next page to ask for (null on the last one).
 */
export function pageResult(items: readonly unknown[], total: number, paging: Paging) {
  const more = paging.offset + items.length < total && items.length > 0;
  return recordResult({
    items,
    total,
    page: paging.page,
    limit: paging.limit,
    next_page: more ? paging.page + 1 : null,
  });
}

type ToolSpec<Input extends z.ZodObject> = {
  readonly title: string;
  readonly description: string;
  readonly input: Input;
  /**
   * `read` changes nothing; `add` only adds (a pull, a comment, a release); `change` alters or
   * finishes something that exists (edits, closing, merging), so clients may ask first.
   */
  readonly effect: 'read' | 'add' | 'change';
  /**
   * The token scope categories the tool needs, as the REST routes it mirrors need them
   * (default `repository`); `read` tools need the read level, the others write.
   */
  readonly scopes?: readonly ScopeCategory[];
};

/**
 * Registers a tool whose arguments are checked against `input` (unknown arguments are refused,
 * so a misspelt one is an error rather than silently ignored) and whose failures become tool
 * errors through the one translator.
 */
export function addTool<Input extends z.ZodObject>(
  kit: ToolKit,
  name: string,
  spec: ToolSpec<Input>,
  run: (args: z.output<Input>, user: User) => Promise<CallToolResult>,
): void {
  kit.server.registerTool(
    name,
    {
      title: spec.title,
      description: spec.description,
      inputSchema: spec.input as z.ZodObject,
      annotations: {
        title: spec.title,
        readOnlyHint: spec.effect === 'read',
        destructiveHint: spec.effect === 'change',
        idempotentHint: spec.effect === 'read',
        openWorldHint: false,
      },
    },
    // The SDK has parsed `args` with `spec.input` before this runs; its types cannot say so.
    (args: z.output<z.ZodObject>) => {
      const call = kit
        .caller()
        .then(({ user, scopes }) => {
          const level = spec.effect === 'read' ? 'read' : 'write';
          requireScopes(scopes, level, spec.scopes ?? ['repository']);
          return run(args as z.output<Input>, user);
        })
        .catch((error: unknown) => errorResult(error, name, kit.log));
      kit.inFlight.add(call);
      return call.finally(() => kit.inFlight.delete(call));
    },
  );
}

type ListArgs<Shape extends z.core.$ZodLooseShape> = z.output<z.ZodObject<Shape, z.core.$strict>>;

/**
 * Registers a read-only tool that answers one page of records: `page` and `limit` are added to
 * `args` and capped as the REST API caps them, and the answer is wrapped as {@link pageResult}
 * does, so every listing tool pages the same way.
 */
export function addListTool<Shape extends z.core.$ZodLooseShape>(
  kit: ToolKit,
  name: string,
  spec: Omit<ToolSpec<z.ZodObject>, 'input' | 'effect'> & { readonly args: Shape },
  list: (
    args: ListArgs<Shape>,
    paging: Paging,
    user: User,
  ) => Promise<{ readonly items: readonly unknown[]; readonly total: number }>,
): void {
  const { args, ...rest } = spec;
  const input = z.strictObject({ ...args, ...pagingArgs });
  addTool(kit, name, { ...rest, input, effect: 'read' }, async (given, user) => {
    const { page, limit, ...own } = given as ListArgs<Shape> & { page?: number; limit?: number };
    const paging = pagingOf({ page, limit });
    const { items, total } = await list(own as ListArgs<Shape>, paging, user);
    return pageResult(items, total, paging);
  });
}
