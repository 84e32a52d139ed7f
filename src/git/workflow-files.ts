import type { CatFilePool } from './cat-file-pool.ts';
import { afterEndOfOptions, runGit } from './command.ts';
import { runGitOnObjects } from './object-answers.ts';
import { readBlob } from './read-objects.ts';
import { checkRevision } from './ref-names.ts';
import { requireRepository } from './repo-exists.ts';
import type { RepoHandle } from './repo-paths.ts';

/** Where workflow files live, in the order they are looked for (Gitea's order). */
export const WORKFLOW_DIRS = ['.gitea/workflows', '.github/workflows'] as const;

/** A workflow file found at a commit. */
export interface WorkflowFile {
  /** Path from the repository root, e.g. `.gitea/workflows/ci.yml`. */
  readonly path: string;
  readonly content: string;
}

/** Workflow files above this size are not read: no real workflow comes near it. */
const MAX_WORKFLOW_BYTES = 512 * 1024;

/**
 * The workflow files (`*.yml`, `*.yaml`, in subfolders too) at a commit: those under
 * `.gitea/workflows/`, or, only when that folder does not exist, under `.github/workflows/`.
 * One `ls-tree` lists both folders; each file is then read through the cat-file process.
 */
export async function readWorkflowFiles(
  pool: CatFilePool,
  repo: RepoHandle,
  sha: string,
): Promise<WorkflowFile[]> {
  await requireRepository(repo);
  const { stdout } = await runGit(
    [
      'ls-tree',
      '-r',
      '-z',
      '--full-tree',
      ...afterEndOfOptions(checkRevision(sha)),
      '--',
      ...WORKFLOW_DIRS,
    ],
    { gitDir: repo.path },
  );
  const entries = stdout
    .toString('utf8')
    .split('\0')
    .filter((line) => line !== '')
    .map((line) => {
      const tab = line.indexOf('\t');
      const [mode, type, blob] = line.slice(0, tab).split(' ');
      return { mode, type, blob: blob ?? '', path: line.slice(tab + 1) };
    })
    .filter((entry) => entry.type === 'blob' && /\.ya?ml$/.test(entry.path));
  const chosenDir = WORKFLOW_DIRS.find((dir) =>
    entries.some((entry) => entry.path.startsWith(`${dir}/`)),
  );
  const files: WorkflowFile[] = [];
  for (const entry of entries) {
    if (chosenDir === undefined || !entry.path.startsWith(`${chosenDir}/`)) continue;
    const blob = await readBlob(pool, repo, entry.blob, { maxBytes: MAX_WORKFLOW_BYTES });
    if (blob.truncated) continue;
    files.push({ path: entry.path, content: blob.content.toString('utf8') });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : 1));
}

/**
 * The paths that differ between two commits (both sides of a rename), or, without `from`, the
 * paths the commit changed against its first parent (every path for a root commit). Asked with
 * full commit ids, the answer is kept with the other answers about objects: a protected pull's
 * page asks it on every view, and the same two commits always differ in the same paths.
 */
export async function changedPaths(repo: RepoHandle, to: string, from?: string): Promise<string[]> {
  await requireRepository(repo);
  const args =
    from === undefined
      ? [
          'diff-tree',
          '-r',
          '--root',
          '--no-commit-id',
          '--name-only',
          '-z',
          ...afterEndOfOptions(checkRevision(to)),
        ]
      : [
          'diff',
          '--name-only',
          '-z',
          '--no-renames',
          ...afterEndOfOptions(checkRevision(from), checkRevision(to)),
        ];
  const { stdout } = await runGitOnObjects(repo, from === undefined ? [to] : [from, to], args);
  return stdout
    .toString('utf8')
    .split('\0')
    .filter((path) => path !== '');
}
