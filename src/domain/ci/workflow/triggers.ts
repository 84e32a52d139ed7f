import { anyEscapes, anyMatches, matchesPatterns } from './glob-filter.ts';

/**
 * A workflow's `on:` reduced to what Kiln evaluates: per event name, its filters (the mapping
 * under the event, or empty when the event is named bare or in a list).
 */
export type Triggers = ReadonlyMap<string, Readonly<Record<string, unknown>>>;

/** Reads `on:` in its three spellings: `on: push`, `on: [push, pull_request]`, a mapping. */
export function readTriggers(on: unknown): Triggers {
  const triggers = new Map<string, Record<string, unknown>>();
  if (typeof on === 'string') triggers.set(on, {});
  else if (Array.isArray(on)) {
    for (const name of on) if (typeof name === 'string') triggers.set(name, {});
  } else if (isRecord(on)) {
    for (const [name, filters] of Object.entries(on)) {
      triggers.set(
        name,
        isRecord(filters) ? filters : name === 'schedule' ? { schedule: filters } : {},
      );
    }
  }
  return triggers;
}

/** What a pushed ref looked like: the full ref and the files the push changed. */
export type PushFacts = {
  readonly ref: string;
  readonly changedPaths: readonly string[];
};

/**
 * Whether a push of `ref` starts the workflow. Every filter present must pass, except that when
 * both a branch filter and a tag filter are given, passing either suffices (GitHub's rule: a
 * workflow with only branch filters ignores tag pushes, and the other way round).
 */
export function matchesPush(triggers: Triggers, facts: PushFacts): boolean {
  const push = triggers.get('push');
  if (push === undefined) return false;
  const branch = facts.ref.startsWith('refs/heads/') ? facts.ref.slice(11) : undefined;
  const tag = facts.ref.startsWith('refs/tags/') ? facts.ref.slice(10) : undefined;
  const branches = stringList(push.branches);
  const branchesIgnore = stringList(push['branches-ignore']);
  const tags = stringList(push.tags);
  const tagsIgnore = stringList(push['tags-ignore']);
  const hasBranchFilter = branches !== undefined || branchesIgnore !== undefined;
  const hasTagFilter = tags !== undefined || tagsIgnore !== undefined;
  const branchPasses =
    branch !== undefined &&
    (branches === undefined || matchesPatterns(branches, branch)) &&
    (branchesIgnore === undefined || !matchesPatterns(branchesIgnore, branch));
  const tagPasses =
    tag !== undefined &&
    (tags === undefined || matchesPatterns(tags, tag)) &&
    (tagsIgnore === undefined || !matchesPatterns(tagsIgnore, tag));
  let refPasses: boolean;
  if (hasBranchFilter && hasTagFilter) refPasses = branchPasses || tagPasses;
  else if (hasBranchFilter) refPasses = branchPasses;
  else if (hasTagFilter) refPasses = tagPasses;
  else refPasses = branch !== undefined || tag !== undefined;
  if (!refPasses) return false;
  // Path filters do not apply to tag pushes (GitHub evaluates them for branches only).
  if (tag !== undefined) return true;
  return pathsPass(push, facts.changedPaths);
}

/** A pull request event: its action, the base branch name and the files the pull changes. */
export type PullFacts = {
  readonly action: 'opened' | 'synchronize' | 'reopened' | 'closed';
  readonly baseBranch: string;
  readonly changedPaths: readonly string[];
};

/** GitHub's default `types` for `pull_request`. */
const DEFAULT_PULL_TYPES = ['opened', 'synchronize', 'reopened'];

/** Whether a pull request event starts the workflow (`branches` filter the base branch). */
export function matchesPull(triggers: Triggers, facts: PullFacts): boolean {
  const pull = triggers.get('pull_request');
  if (pull === undefined) return false;
  const types = stringList(pull.types) ?? DEFAULT_PULL_TYPES;
  if (!types.includes(facts.action)) return false;
  const branches = stringList(pull.branches);
  if (branches !== undefined && !matchesPatterns(branches, facts.baseBranch)) return false;
  const ignored = stringList(pull['branches-ignore']);
  if (ignored !== undefined && matchesPatterns(ignored, facts.baseBranch)) return false;
  return pathsPass(pull, facts.changedPaths);
}

function pathsPass(
  filters: Readonly<Record<string, unknown>>,
  changed: readonly string[],
): boolean {
  const paths = stringList(filters.paths);
  if (paths !== undefined && !anyMatches(paths, changed)) return false;
  const ignored = stringList(filters['paths-ignore']);
  if (ignored !== undefined && !anyEscapes(ignored, changed)) return false;
  return true;
}

/** A `workflow_dispatch` input as declared. */
export type DispatchInput = {
  readonly name: string;
  readonly required: boolean;
  readonly default: string | undefined;
};

/** The inputs `workflow_dispatch` declares, or undefined when the workflow cannot be dispatched. */
export function dispatchInputs(triggers: Triggers): DispatchInput[] | undefined {
  const dispatch = triggers.get('workflow_dispatch');
  if (dispatch === undefined) return undefined;
  const inputs = isRecord(dispatch.inputs) ? dispatch.inputs : {};
  return Object.entries(inputs).map(([name, spec]) => ({
    name,
    required: isRecord(spec) && spec.required === true,
    default: isRecord(spec) && spec.default !== undefined ? String(spec.default) : undefined,
  }));
}

/** The cron lines of `on.schedule` (`- cron: '…'` entries). */
export function scheduleCrons(triggers: Triggers): string[] {
  const schedule = triggers.get('schedule');
  const entries = schedule?.schedule;
  if (!Array.isArray(entries)) return [];
  return entries.flatMap((entry) =>
    isRecord(entry) && typeof entry.cron === 'string' ? [entry.cron] : [],
  );
}

/** A filter value as a list of strings: a single string counts as a one-item list. */
function stringList(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.map((item) => String(item));
  return undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
