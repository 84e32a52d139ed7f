/**
 * Typed domain errors. Services throw these and never choose an HTTP status; each edge (REST,
 * pages, git transport, Connect, MCP) maps them once, in a single file of its own.
 */
export type DomainErrorCode =
  | 'not_found'
  | 'conflict'
  | 'forbidden'
  | 'invalid'
  | 'unauthenticated'
  | 'not_allowed'
  | 'unavailable'
  | 'rate_limited'
  | 'too_large'
  | 'unsupported';

export abstract class DomainError extends Error {
  abstract readonly code: DomainErrorCode;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.details = options?.details;
  }
}

/** The thing does not exist, or the caller may not know that it exists. */
export class NotFound extends DomainError {
  readonly code = 'not_found';
}

/** The change collides with existing state (a taken name, a moved ref, a duplicate pull). */
export class Conflict extends DomainError {
  readonly code = 'conflict';
}

/** The caller is known and may see the thing, but may not do this to it. */
export class Forbidden extends DomainError {
  readonly code = 'forbidden';
}

/** The input is well-formed but breaks a rule (a bad name, a missing branch). */
export class Invalid extends DomainError {
  readonly code = 'invalid';
}

/** Credentials are missing, wrong or revoked. */
export class Unauthenticated extends DomainError {
  readonly code = 'unauthenticated';
}

/** The operation is not allowed in the thing's current state (merging a merged pull). */
export class NotAllowed extends DomainError {
  readonly code = 'not_allowed';
}

/** A dependency (git, the database) could not do its part right now. */
export class Unavailable extends DomainError {
  readonly code = 'unavailable';
}

/**
 * Too many attempts in too little time (password guesses): try again after
 * `details.retryAfterSeconds`.
 */
export class TooManyAttempts extends DomainError {
  readonly code = 'rate_limited';
}

/** The input is larger than Kiln accepts (a request body that inflates beyond its limit). */
export class TooLarge extends DomainError {
  readonly code = 'too_large';
}

/** The input comes in a form Kiln does not read (a content type or encoding it does not speak). */
export class Unsupported extends DomainError {
  readonly code = 'unsupported';
}

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}
