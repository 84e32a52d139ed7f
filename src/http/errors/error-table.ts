import { Code } from '@connectrpc/connect';
import type { DomainErrorCode } from '../../domain/errors.ts';

/** The HTTP edges that answer domain errors, each in a body format of its own. */
export type ErrorEdge = 'api' | 'page' | 'git' | 'federation';

/** One domain error code as every edge answers it, unless the edge overrides the status. */
type ErrorRow = {
  /** The HTTP status: Gitea's, which REST clients already expect. */
  readonly status: number;
  /** The Connect code the runner protocol answers with (it carries its own status). */
  readonly connect: Code;
};

/**
 * The one table from domain error code to answer. Every edge's translator (REST JSON, pages,
 * git's text lines, Connect for runners) reads its status here, so a new code is
 * added in one place and the type checker points at nothing else to update.
 */
const TABLE: Readonly<Record<DomainErrorCode, ErrorRow>> = {
  not_found: { status: 404, connect: Code.NotFound },
  conflict: { status: 409, connect: Code.AlreadyExists },
  forbidden: { status: 403, connect: Code.PermissionDenied },
  invalid: { status: 422, connect: Code.InvalidArgument },
  unauthenticated: { status: 401, connect: Code.Unauthenticated },
  not_allowed: { status: 405, connect: Code.FailedPrecondition },
  unavailable: { status: 503, connect: Code.Unavailable },
  rate_limited: { status: 429, connect: Code.ResourceExhausted },
  too_large: { status: 413, connect: Code.ResourceExhausted },
  unsupported: { status: 415, connect: Code.InvalidArgument },
};

/**
 * Where an edge must answer differently. Git prints the line it is given and knows no 422:
 * input it cannot use is a plain 400 there, as Gitea's smart HTTP answers. ActivityPub servers
 * treat any 4xx alike and expect 400 for an activity or query they sent wrong.
 */
const OVERRIDES: Readonly<Record<ErrorEdge, Partial<Record<DomainErrorCode, number>>>> = {
  api: {},
  page: {},
  git: { invalid: 400 },
  federation: { invalid: 400 },
};

/**
 * The status `edge` answers a domain error of `code` with.
 *
 * @example
 * statusOf('invalid', 'api') // → 422
 * statusOf('invalid', 'git') // → 400
 */
export function statusOf(code: DomainErrorCode, edge: ErrorEdge): number {
  return OVERRIDES[edge][code] ?? TABLE[code].status;
}

/** The Connect code the runner protocol answers a domain error of `code` with. */
export function connectCodeOf(code: DomainErrorCode): Code {
  return TABLE[code].connect;
}

/** Every domain error code, in the table's order (for tests and documentation). */
export const DOMAIN_ERROR_CODES = Object.keys(TABLE) as readonly DomainErrorCode[];
