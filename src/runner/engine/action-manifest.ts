/**
 * An action's `action.yml` and the inputs a step gives it, with the conversions of GitHub's
 * runner: a default that is `null` or missing sets nothing (the action reads an empty string),
 * booleans and numbers are written out (`true`, `1`), and a default that is an expression
 * (`${{ github.token }}`) is evaluated when the step runs, as the values of `with:` are.
 */
import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { type Contexts, interpolate, type JobStatus } from './expressions.ts';
import { readJobFile } from './job-files.ts';
import type { JobView } from './job-view.ts';

/** A YAML mapping read loosely: anything that is not one reads as empty. */
export type Loose = Record<string, unknown>;

/** A mapping, or `{}` for anything else. */
export function object(value: unknown): Loose {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Loose)
    : {};
}

/** Reads `action.yml` (or `action.yaml`) of the action in `dir`. */
export async function readManifest(job: JobView, dir: string): Promise<Loose> {
  // Roots are real paths: the work root may sit behind a link (/tmp on some systems).
  const roots = [job.dirs.workspace, job.dirs.actions].map((root) => realpathSync(root));
  for (const name of ['action.yml', 'action.yaml']) {
    const file = join(dir, name);
    if (existsSync(file)) return object(parse(await readJobFile(file, roots)));
  }
  throw new Error(`no action.yml in ${dir}`);
}

/** The text of an input's `default:`, or undefined when it sets nothing (`null`, absent). */
export function inputDefault(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/**
 * The inputs of one run of the action: `given` (the step's `with:`) over the declared defaults,
 * each evaluated. Input names are matched without regard to case, as GitHub does, and keep the
 * spelling of the action's declaration.
 */
export function inputValues(
  manifest: Loose,
  given: Record<string, string>,
  contexts: Contexts,
  status: JobStatus,
): Record<string, string> {
  const declared = new Map<string, string>();
  const values: Record<string, string> = {};
  for (const [name, spec] of Object.entries(object(manifest.inputs))) {
    declared.set(name.toLowerCase(), name);
    const fallback = inputDefault(object(spec).default);
    if (fallback !== undefined) values[name] = interpolate(fallback, contexts, status);
  }
  for (const [name, value] of Object.entries(given)) {
    values[declared.get(name.toLowerCase()) ?? name] = interpolate(value, contexts, status);
  }
  return values;
}

/** Inputs as the `INPUT_<NAME>` variables `@actions/core` reads (spaces become `_`). */
export function inputEnv(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).map(([name, value]) => [
      `INPUT_${name.replaceAll(' ', '_').toUpperCase()}`,
      value,
    ]),
  );
}

/** Evaluates `values` (a step's or job's `env:`) one after another. */
export function evaluateEnv(job: JobView, values: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  const contexts = job.contexts();
  for (const [key, value] of Object.entries(values)) {
    env[key] = interpolate(value, contexts, job.status);
  }
  return env;
}
