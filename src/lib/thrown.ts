/*
 * What a `catch` holds is `unknown`: these read it without asserting what it is.
 */

/** The `code` of a thrown system or library error (`ENOENT`, `EADDRINUSE`), if it has one. */
export function errorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string'
    ? error.code
    : undefined;
}

/** The HTTP status a thrown error carries (Fastify's and its plugins' `statusCode`), if any. */
export function errorStatus(error: unknown): number | undefined {
  return error instanceof Error && 'statusCode' in error && typeof error.statusCode === 'number'
    ? error.statusCode
    : undefined;
}

/** The message of a thrown error; the value itself, as text, when something else was thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The thrown value as an `Error`, wrapping anything else that was thrown. */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
