/**
 * The shared layout of commit and tag objects: header lines `key value`, continuation lines that
 * start with a space (multi-line `gpgsig`, `mergetag`), a blank line, then the message.
 */
export interface HeaderedObject {
  readonly headers: ReadonlyArray<readonly [key: string, value: string]>;
  /** The message bytes, undecoded: the `encoding` header says how to read them. */
  readonly message: Buffer;
}

export function splitHeaders(data: Buffer): HeaderedObject {
  const end = data.indexOf('\n\n');
  const headerText = data.subarray(0, end === -1 ? data.length : end).toString('utf8');
  const message = end === -1 ? Buffer.alloc(0) : data.subarray(end + 2);
  const headers: Array<[string, string]> = [];
  for (const line of headerText.split('\n')) {
    if (line.startsWith(' ') && headers.length > 0) {
      const last = headers[headers.length - 1]!;
      last[1] += `\n${line.slice(1)}`;
      continue;
    }
    if (line.length === 0) continue;
    const space = line.indexOf(' ');
    headers.push(space === -1 ? [line, ''] : [line.slice(0, space), line.slice(space + 1)]);
  }
  return { headers, message };
}

export function firstHeader(object: HeaderedObject, key: string): string | undefined {
  return object.headers.find(([name]) => name === key)?.[1];
}

/**
 * Decodes a message in the encoding its object declares (git's `encoding` header, e.g.
 * ISO-8859-1); unknown encodings and the usual case, none, read as UTF-8.
 */
export function decodeText(bytes: Buffer, encoding: string | undefined): string {
  if (encoding && !/^utf-?8$/i.test(encoding)) {
    try {
      return new TextDecoder(encoding).decode(bytes);
    } catch {
      // An encoding name Node does not know: fall through to UTF-8.
    }
  }
  return bytes.toString('utf8');
}
