import type { DomainErrorCode } from '../../domain/errors.ts';

/** The HTTP edges that answer domain errors, each in a body format of its own. */
export type ErrorEdge = 'api' | 'page' | 'git' | 'federation' | 'cache';

/**
 * The Connect codes the runner protocol answers domain errors with, by their names on the wire
 * (`{"code": "not_found"}`). Names rather than Connect's `Code` values, so that the other edges,
 * which load this table at start, do not load Connect with it: the runner protocol loads with
 * the first runner call (`http/actions/connect-errors.ts` turns the name into the value).
 */
export type ConnectCodeName =
  | 'not_found'
  | 'already_exists'
  | 'permission_denied'
  | 'invalid_argument'
  | 'unauthenticated'
  | 'failed_precondition'
  | 'unavailable'
  | 'resource_exhausted';

/** One domain error code as every edge answers it, unless the edge overrides the status. */
type ErrorRow = {
  /** The HTTP status: Gitea's, which REST clients already expect. */
  readonly status: number;
  /** The Connect code the runner protocol answers with (it carries its own status). */
  readonly connect: ConnectCodeName;
};

/**
 * The one table from domain error code to answer. Every edge's translator (REST JSON, pages,
 * git's text lines, Connect for runners) reads its status here, so a new code is
 * added in one place and the type checker points at nothing else to update.
 */
const TABLE: Readonly<Record<DomainErrorCode, ErrorRow>> = {
  not_found: { status: 404, connect: 'not_found' },
  conflict: { status: 409, connect: 'already_exists' },
  forbidden: { status: 403, connect: 'permission_denied' },
  invalid: { status: 422, connect: 'invalid_argument' },
  unauthenticated: { status: 401, connect: 'unauthenticated' },
  not_allowed: { status: 405, connect: 'failed_precondition' },
  unavailable: { status: 503, connect: 'unavailable' },
  rate_limited: { status: 429, connect: 'resource_exhausted' },
  too_large: { status: 413, connect: 'resource_exhausted' },
  unsupported: { status: 415, connect: 'invalid_argument' },
};

/**
 * Where an edge must answer differently. Git prints the line it is given and knows no 422:
 * input it cannot use is a plain 400 there, as Gitea's smart HTTP answers. ActivityPub servers
 * treat any 4xx alike and expect 400 for an activity or query they sent wrong. The cache
 * protocol (`actions/cache`) answers a request it cannot use with 400, as GitHub's service does.
 */
const OVERRIDES: Readonly<Record<ErrorEdge, Partial<Record<DomainErrorCode, number>>>> = {
  api: {},
  page: {},
  git: { invalid: 400 },
  federation: { invalid: 400 },
  cache: { invalid: 400 },
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

/** The name of the Connect code the runner protocol answers a domain error of `code` with. */
export function connectCodeOf(code: DomainErrorCode): ConnectCodeName {
  return TABLE[code].connect;
}

/** Every domain error code, in the table's order (for tests and documentation). */
export const DOMAIN_ERROR_CODES = Object.keys(TABLE) as readonly DomainErrorCode[];
