import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { isDomainError } from '../domain/errors.ts';

/** A tool result that tells the caller what went wrong, as MCP wants: a result, not a crash. */
export function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/**
 * The single MCP error translator. Domain errors keep the message the REST API sends (a private
 * repository of someone else is "not found" here too); anything else is logged on stderr and
 * answered with a generic message, so SQL or git output never reaches the caller.
 */
export function errorResult(error: unknown, tool: string, log: Logger): CallToolResult {
  if (isDomainError(error)) return toolError(error.message);
  log.error({ err: error, tool }, 'tool failed');
  return toolError('internal server error');
}
