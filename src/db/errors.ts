import { Conflict } from '../domain/errors.ts';

/** SQLite reports constraint failures by message/code; PostgreSQL by SQLSTATE 23505. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, errcode, message } = error as {
    code?: unknown;
    errcode?: unknown;
    message?: unknown;
  };
  if (code === '23505') return true;
  if (code === 'ERR_SQLITE_ERROR' && (errcode === 2067 || errcode === 1555)) return true;
  return typeof message === 'string' && message.startsWith('UNIQUE constraint failed');
}

/**
 * Runs a write and turns a unique-constraint violation of either engine into the domain's
 * Conflict with the given message; anything else is rethrown unchanged.
 */
export async function uniqueOrConflict<T>(write: () => Promise<T>, message: string): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw new Conflict(message, { cause: error });
    throw error;
  }
}
