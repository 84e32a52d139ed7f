import { createHash } from 'node:crypto';

/**
 * SHA-256 of the text's UTF-8 bytes, base64url: the name of a document by what it says, for
 * keeping what was made of it (a render) or the text itself.
 */
export function contentHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64url');
}
