/*
 * What a `catch` holds is `unknown`; the runner imports nothing of the server's lib, so it reads
 * thrown values with these two.
 */

/** The `code` of a thrown system error (`ENOENT`, `EAGAIN`), if it has one. */
export function errorCode(error: unknown): string | undefined {
  if (!(error instanceof Error) || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

/** The message of a thrown error, or the thrown value as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
