/** Who made a commit or tag, and when, as git records it: `Name <email> 1700000000 +0100`. */
export interface Signature {
  readonly name: string;
  readonly email: string;
  /** Seconds since the Unix epoch. */
  readonly timestamp: number;
  /** The author's own offset as git writes it, `+0100` or `-0530`. */
  readonly timezone: string;
  /** The same offset in minutes east of UTC (`+0100` → 60). */
  readonly timezoneOffsetMinutes: number;
}

const TIMEZONE = /^([+-])(\d{2})(\d{2})$/;

/**
 * Parses an ident line the way git does: the name runs up to the first `<`, the email up to the
 * next `>`, then a timestamp and a zone. Malformed dates read as the epoch in UTC rather than
 * failing, since old repositories contain odd idents.
 */
export function parseSignature(line: string): Signature {
  const lt = line.indexOf('<');
  const gt = lt === -1 ? -1 : line.indexOf('>', lt + 1);
  if (lt === -1 || gt === -1) {
    return {
      name: line.trim(),
      email: '',
      timestamp: 0,
      timezone: '+0000',
      timezoneOffsetMinutes: 0,
    };
  }
  const name = line.slice(0, lt).trim();
  const email = line.slice(lt + 1, gt).trim();
  const [time = '', zone = ''] = line
    .slice(gt + 1)
    .trim()
    .split(/\s+/);
  const timestamp = /^\d+$/.test(time) ? Number(time) : 0;
  const match = TIMEZONE.exec(zone);
  if (!match) return { name, email, timestamp, timezone: '+0000', timezoneOffsetMinutes: 0 };
  const [, sign, hours, minutes] = match;
  const offset = (Number(hours) * 60 + Number(minutes)) * (sign === '-' ? -1 : 1);
  return { name, email, timestamp, timezone: zone, timezoneOffsetMinutes: offset };
}
