import { isOneOf } from '../../../lib/narrow.ts';
import type { TokenScopes } from '../../tokens/token-scopes.ts';
import { isRecord } from './triggers.ts';
import { WorkflowError } from './workflow-error.ts';

/** GitHub's `permissions:` scopes, every one a workflow may name. */
export const PERMISSION_SCOPES = [
  'actions',
  'attestations',
  'checks',
  'contents',
  'deployments',
  'discussions',
  'id-token',
  'issues',
  'metadata',
  'models',
  'packages',
  'pages',
  'pull-requests',
  'repository-projects',
  'security-events',
  'statuses',
] as const;

export type PermissionScope = (typeof PERMISSION_SCOPES)[number];
export type PermissionLevel = 'none' | 'read' | 'write';

/** A level per scope, every scope present. */
export type Permissions = Readonly<Record<PermissionScope, PermissionLevel>>;

const RANK: Readonly<Record<PermissionLevel, number>> = { none: 0, read: 1, write: 2 };
const LEVELS: readonly PermissionLevel[] = ['none', 'read', 'write'];

function everyScope(level: PermissionLevel): Permissions {
  return Object.fromEntries(PERMISSION_SCOPES.map((scope) => [scope, level])) as Permissions;
}

/** `write-all`: what a job gets when neither it nor its workflow says `permissions:`. */
export const WRITE_ALL: Permissions = everyScope('write');
/** `read-all`. */
export const READ_ALL: Permissions = everyScope('read');
/** `{}`: the token reaches nothing. */
export const NO_PERMISSIONS: Permissions = everyScope('none');

/**
 * Reads a `permissions:` value as GitHub does: `read-all`, `write-all`, `{}`, or a mapping of
 * scopes to `read`/`write`/`none` in which every scope left out is `none`. Undefined when the
 * value is absent. Throws `WorkflowError` for an unknown scope or level, naming `where`.
 */
export function readPermissions(value: unknown, where: string): Permissions | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === 'read-all') return READ_ALL;
  if (value === 'write-all') return WRITE_ALL;
  if (!isRecord(value)) {
    throw new WorkflowError(`${where}: permissions must be read-all, write-all or a mapping`);
  }
  const read: Record<PermissionScope, PermissionLevel> = { ...NO_PERMISSIONS };
  for (const [scope, level] of Object.entries(value)) {
    if (!isOneOf(PERMISSION_SCOPES, scope)) {
      throw new WorkflowError(`${where}: unknown permission scope "${scope.slice(0, 50)}"`);
    }
    if (!isOneOf(LEVELS, level)) {
      throw new WorkflowError(`${where}: permission "${scope}" must be read, write or none`);
    }
    read[scope] = level;
  }
  return read;
}

/** The lower of two levels. */
function lower(a: PermissionLevel, b: PermissionLevel): PermissionLevel {
  return RANK[a] <= RANK[b] ? a : b;
}

/** Scope by scope, the lower of the two: what both allow. */
export function narrow(a: Permissions, b: Permissions): Permissions {
  return Object.fromEntries(
    PERMISSION_SCOPES.map((scope) => [scope, lower(a[scope], b[scope])]),
  ) as Permissions;
}

/**
 * What one job's token may do: its own `permissions:` when it has them (a job's replace its
 * workflow's, as on GitHub), else its workflow's, else `write-all` — and never more than
 * `bound`, which a called workflow inherits from the job that calls it.
 */
export function jobPermissions(
  bound: Permissions,
  workflow: Permissions | undefined,
  job: Permissions | undefined,
): Permissions {
  return narrow(bound, job ?? workflow ?? WRITE_ALL);
}

/** Scopes whose write lets the token write to its repository beyond issues. */
const REPOSITORY_WRITERS: readonly PermissionScope[] = [
  'actions',
  'checks',
  'contents',
  'deployments',
  'pull-requests',
  'statuses',
];

/** What a task token holds on its repository: an access level and token scopes. */
export type TokenBounds = {
  readonly level: 'none' | 'read' | 'write';
  readonly scopes: TokenScopes;
};

/**
 * Kiln's reading of a job's permissions, the one place they become what the task token may do:
 * - the level on the task's repository is `contents` (push, releases, tags and branches need
 *   write); Kiln has no metadata-only level, so a token with any scope at read or above and
 *   `contents: none` still reads the repository (GitHub's `metadata: read`), and `{}` is `none`;
 * - the `repository` token scope is write when one of the repository scopes is write, the
 *   `issue` scope follows `issues` and `pull-requests` (pull comments are issue comments);
 * - `cap` holds everything at or below it, whatever was asked: read for a pull request from a
 *   fork, or what the run's actor may still do.
 */
export function tokenBoundsOf(permissions: Permissions, cap: PermissionLevel): TokenBounds {
  const granted = PERMISSION_SCOPES.some((scope) => permissions[scope] !== 'none');
  const contents = lower(permissions.contents, cap);
  const level: PermissionLevel = contents === 'none' && granted ? lower('read', cap) : contents;
  if (level === 'none') return { level, scopes: new Map() };
  const repository = REPOSITORY_WRITERS.reduce<PermissionLevel>(
    (best, scope) => (RANK[permissions[scope]] > RANK[best] ? permissions[scope] : best),
    level,
  );
  const issue =
    RANK[permissions.issues] >= RANK[permissions['pull-requests']]
      ? permissions.issues
      : permissions['pull-requests'];
  const scopes = new Map<'repository' | 'issue', 'read' | 'write'>();
  const repositoryLevel = lower(repository, cap);
  const issueLevel = lower(issue, cap);
  if (repositoryLevel !== 'none') scopes.set('repository', repositoryLevel);
  if (issueLevel !== 'none') scopes.set('issue', issueLevel);
  return { level, scopes };
}

/** Permissions as stored with a task: only the scopes above `none`, as a JSON object. */
export function encodePermissions(permissions: Permissions): string {
  return JSON.stringify(
    Object.fromEntries(Object.entries(permissions).filter(([, level]) => level !== 'none')),
  );
}

/** Stored permissions back; null (a task made before they were kept) is `write-all`. */
export function decodePermissions(stored: string | null): Permissions {
  if (stored === null) return WRITE_ALL;
  try {
    return readPermissions(JSON.parse(stored), 'stored') ?? WRITE_ALL;
  } catch {
    return NO_PERMISSIONS;
  }
}
