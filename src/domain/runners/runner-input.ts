import { Invalid } from '../errors.ts';

const MAX_NAME_LENGTH = 255;
const MAX_VERSION_LENGTH = 64;
const MAX_LABELS = 100;
const MAX_LABEL_LENGTH = 255;
const MAX_CAPABILITIES = 32;
const MAX_CAPABILITY_LENGTH = 64;

/** The runner name, trimmed and cut to 255 characters as Gitea does; empty is refused. */
export function runnerName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw new Invalid('runner name must not be empty');
  return trimmed.slice(0, MAX_NAME_LENGTH);
}

/** The version string as reported, cut to a sane length (it is only displayed). */
export function runnerVersion(version: string): string {
  return version.trim().slice(0, MAX_VERSION_LENGTH);
}

/**
 * Label names as stored: trimmed, deduplicated, in the order sent. Runners send bare names, but
 * a full `ubuntu-latest:docker://node:20` is cut to its name, since jobs match on names only.
 * Throws `Invalid` for more labels, or longer ones, than any real runner sends.
 */
export function labelNames(labels: readonly string[]): string[] {
  if (labels.length > MAX_LABELS)
    throw new Invalid(`a runner may have at most ${MAX_LABELS} labels`);
  const names: string[] = [];
  for (const label of labels) {
    const name = (label.split(':', 1)[0] ?? '').trim();
    if (name === '' || names.includes(name)) continue;
    if (name.length > MAX_LABEL_LENGTH) {
      throw new Invalid(`runner label is longer than ${MAX_LABEL_LENGTH} characters`);
    }
    names.push(name);
  }
  return names;
}

/**
 * Capability flags as stored. Unknown flags are kept (later phases may read them) but the list
 * is bounded; oversized entries are dropped rather than failing a runner's start.
 */
export function capabilityFlags(capabilities: readonly string[]): string[] {
  const flags: string[] = [];
  for (const capability of capabilities) {
    const flag = capability.trim();
    if (flag === '' || flag.length > MAX_CAPABILITY_LENGTH || flags.includes(flag)) continue;
    flags.push(flag);
    if (flags.length === MAX_CAPABILITIES) break;
  }
  return flags;
}

/** Reads a stored JSON array of strings; anything else reads as empty. */
export function parseStringArray(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((item) => typeof item === 'string') : [];
  } catch {
    return [];
  }
}
