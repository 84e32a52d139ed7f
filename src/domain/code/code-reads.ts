import { isDomainError, NotFound } from '../errors.ts';
import type { TreeItemKind } from './code.types.ts';

/**
 * What every read of a repository's code shares: to a browser a malformed ref, path or object id
 * is a page that does not exist, so each read answers NotFound rather than Invalid.
 */

/** NotFound naming what was looked for. */
export function missing(what: string): NotFound {
  return new NotFound(`${what} not found`);
}

/** Runs a git read, turning malformed input (Invalid) into NotFound. */
export async function browse<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (isDomainError(error) && error.code === 'invalid') throw missing('object');
    throw error;
  }
}

/** The kind of a tree entry, from its git mode. */
export function itemKind(mode: string): TreeItemKind {
  if (mode === '040000') return 'dir';
  if (mode === '160000') return 'submodule';
  if (mode === '120000') return 'symlink';
  return 'file';
}
