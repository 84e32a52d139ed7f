import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Logger } from 'pino';
import type { DomainServices } from '../domain/services.ts';
import type { TokenHolder } from '../domain/tokens/token.service.ts';
import { PullViews } from '../present/pull-views.ts';
import { RepoViews } from '../present/repo-views.ts';
import { KILN_VERSION } from '../version.ts';
import { registerBranchTools } from './branch.tools.ts';
import { registerPullTools } from './pull.tools.ts';
import { registerReleaseTools } from './release.tools.ts';
import { registerRepoTools } from './repo.tools.ts';
import { registerReviewTools } from './review.tools.ts';
import { registerReviewCommentTools } from './review-comment.tools.ts';
import { registerRunTools } from './run.tools.ts';
import { registerSearchTools } from './search.tools.ts';
import type { ToolKit } from './tool-kit.ts';

/** The services the tools use, and those the shared view loaders read. */
export type McpServices = Pick<
  DomainServices,
  | 'repos'
  | 'users'
  | 'admins'
  | 'branches'
  | 'pulls'
  | 'remotePulls'
  | 'pullMerges'
  | 'mergeability'
  | 'reviewComments'
  | 'pullReviews'
  | 'releases'
  | 'federation'
  | 'ciRunQueries'
  | 'ciRunReruns'
  | 'ciRunCancels'
>;

/** What the MCP server is built from. */
export type McpDeps = { readonly services: McpServices };

const INSTRUCTIONS =
  'Kiln is a self-hosted git forge. These tools act as one Kiln account (see whoami) with its ' +
  'permissions; what it may not see is reported as not found. Records have the shape of the ' +
  "forge's Gitea-compatible REST API, except that URL fields are null. Repositories are " +
  'addressed by owner and repo, pull requests by their per-repository number, releases by tag, ' +
  'workflow runs by their per-repository number and jobs by id.';

/**
 * The MCP server with every tool registered, acting as whoever `caller` names. Records come from the same view
 * loaders and converters as the REST API, with no base URL (so URL fields are null).
 */
export function buildMcpServer(
  deps: McpDeps,
  caller: () => Promise<TokenHolder>,
  log: Logger,
  inFlight: Set<Promise<unknown>>,
): McpServer {
  const server = new McpServer(
    { name: 'kiln', title: 'Kiln', version: KILN_VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  const repoViews = new RepoViews(deps);
  const kit: ToolKit<keyof McpServices> = {
    server,
    services: deps.services,
    caller,
    context: { baseUrl: null },
    repoViews,
    pullViews: new PullViews(deps, repoViews),
    log,
    inFlight,
  };
  registerRepoTools(kit);
  registerBranchTools(kit);
  registerPullTools(kit);
  registerReviewCommentTools(kit);
  registerReviewTools(kit);
  registerReleaseTools(kit);
  registerSearchTools(kit);
  registerRunTools(kit);
  return server;
}
