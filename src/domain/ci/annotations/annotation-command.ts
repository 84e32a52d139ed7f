/** The levels of annotation a workflow command makes, as GitHub names them. */
export type AnnotationLevel = 'error' | 'warning' | 'notice';

/** An annotation as a job's log line asked for it; absent properties are null. */
export type AnnotationCommand = {
  readonly level: AnnotationLevel;
  readonly message: string;
  readonly title: string | null;
  readonly file: string | null;
  readonly line: number | null;
  readonly endLine: number | null;
  readonly col: number | null;
  readonly endCol: number | null;
};

/** Lengths kept of what a log line says: an annotation is a note, not a second log. */
export const ANNOTATION_LIMITS = { message: 4096, title: 255, file: 1024 } as const;

const LEVELS: ReadonlySet<string> = new Set(['error', 'warning', 'notice']);
/** Past this many characters a line is not searched for the command's end. */
const MAX_SCANNED = 64 * 1024;
/** The largest line or column number kept (fits every database's integer). */
const MAX_POSITION = 2_147_483_647;

/**
 * Undoes the escapes the toolkit writes (`escapeData`, `escapeProperty`): `%25` `%0D` `%0A` in
 * both, `%3A` `%2C` in properties only. Any other `%` sequence is left as it is, as GitHub's
 * runner leaves it; `%25` is undone last so that `%250A` stays `%0A`.
 */
function unescapeValue(text: string, property: boolean): string {
  if (!text.includes('%')) return text;
  let out = text.replace(/%0D/gi, '\r').replace(/%0A/gi, '\n');
  if (property) out = out.replace(/%3A/gi, ':').replace(/%2C/gi, ',');
  return out.replace(/%25/g, '%');
}

function cut(text: string, max: number): string {
  return text.length > max ? text.slice(0, max) : text;
}

function position(value: string | undefined): number | null {
  if (value === undefined || !/^\d{1,10}$/.test(value.trim())) return null;
  const number = Number(value.trim());
  return number >= 1 && number <= MAX_POSITION ? number : null;
}

/**
 * The annotation a log line asks for — `::error file=a.ts,line=3,col=1,endLine=4,endColumn=2,
 * title=T::message`, `::warning …`, `::notice …` (level names in any case, leading blanks
 * allowed) — or undefined for any other line. Unknown properties are ignored, a line or column
 * that is not a positive integer is left out, a property without `=` is ignored; strings are
 * unescaped and cut to ANNOTATION_LIMITS. Linear in the line and never past MAX_SCANNED
 * characters of it, whatever the line holds.
 */
export function parseAnnotationCommand(content: string): AnnotationCommand | undefined {
  const start = content.length - content.trimStart().length;
  if (!content.startsWith('::', start)) return undefined;
  const end = content.indexOf('::', start + 2);
  if (end === -1 || end - start > MAX_SCANNED) return undefined;
  const head = content.slice(start + 2, end);
  const space = head.indexOf(' ');
  const name = (space === -1 ? head : head.slice(0, space)).toLowerCase();
  if (!LEVELS.has(name)) return undefined;
  const properties = new Map<string, string>();
  if (space !== -1) {
    for (const pair of head.slice(space + 1).split(',')) {
      const equals = pair.indexOf('=');
      if (equals <= 0) continue;
      const key = pair.slice(0, equals).trim();
      if (!properties.has(key)) properties.set(key, unescapeValue(pair.slice(equals + 1), true));
    }
  }
  const text = (key: string, max: number) => {
    const value = properties.get(key);
    return value === undefined || value === '' ? null : cut(value, max);
  };
  const message = content.slice(end + 2, end + 2 + ANNOTATION_LIMITS.message * 3);
  return {
    level: name as AnnotationLevel,
    message: cut(unescapeValue(message, false), ANNOTATION_LIMITS.message),
    title: text('title', ANNOTATION_LIMITS.title),
    file: text('file', ANNOTATION_LIMITS.file),
    line: position(properties.get('line')),
    endLine: position(properties.get('endLine')),
    col: position(properties.get('col')),
    endCol: position(properties.get('endColumn')),
  };
}
