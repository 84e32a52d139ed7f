import { decodeText, firstHeader, splitHeaders } from './headers.ts';
import { isObjectType, type ObjectType } from './object-type.ts';
import { parseSignature, type Signature } from './signature.ts';

/** A parsed annotated tag object. */
export interface TagObject {
  /** The object the tag points at, usually a commit. */
  readonly object: string;
  readonly type: ObjectType;
  readonly tag: string;
  /** Absent in some very old tags. */
  readonly tagger: Signature | undefined;
  /** The message, including any signature block git appends to it. */
  readonly message: string;
}

/** Parses the raw bytes of an annotated tag object. */
export function parseTag(data: Buffer): TagObject {
  const object = splitHeaders(data);
  const target = firstHeader(object, 'object');
  const type = firstHeader(object, 'type');
  if (target === undefined || type === undefined || !isObjectType(type)) {
    throw new Error('malformed tag: no object or type');
  }
  const tagger = firstHeader(object, 'tagger');
  return {
    object: target,
    type,
    tag: firstHeader(object, 'tag') ?? '',
    tagger: tagger === undefined ? undefined : parseSignature(tagger),
    message: decodeText(object.message, firstHeader(object, 'encoding')),
  };
}
