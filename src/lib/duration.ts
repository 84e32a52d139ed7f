const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const PART = /(\d+)(ms|s|m|h|d)/y;

/**
 * Parses a duration such as `90s`, `5m`, `1h`, `1h30m` or `250ms` into milliseconds.
 * Returns undefined for anything else (no bare numbers: a unit is always required).
 */
export function parseDuration(text: string): number | undefined {
  const input = text.trim();
  if (input === '' || input.length > 32) return undefined;
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < input.length) {
    const start = PART.lastIndex;
    const match = PART.exec(input);
    if (!match || match.index !== start) return undefined;
    const unit = match[2] as keyof typeof UNIT_MS;
    total += Number(match[1]) * UNIT_MS[unit];
  }
  return Number.isSafeInteger(total) ? total : undefined;
}

/** Formats milliseconds back into the shortest duration text (`3600000` → `1h`). */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const parts: string[] = [];
  let rest = ms;
  for (const unit of ['d', 'h', 'm', 's', 'ms'] as const) {
    const size = UNIT_MS[unit];
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join('');
}
