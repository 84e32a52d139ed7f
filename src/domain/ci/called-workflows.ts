import type { CatFilePool } from '../../git/cat-file-pool.ts';
import { readBlob } from '../../git/read-objects.ts';
import { resolveCommit } from '../../git/refs.ts';
import { DomainError } from '../errors.ts';
import { visibleToAnyone } from '../repos/repo.policy.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository } from '../repos/repo.types.ts';
import type { LoadedWorkflow, WorkflowLoader } from './workflow/call-expansion.ts';
import { callLabel } from './workflow/workflow-call.ts';
import { WorkflowError } from './workflow/workflow-error.ts';

/** Where a workflow's `./` calls resolve: its repository at the commit it was read at. */
export type CallOrigin = { readonly repo: Repository; readonly sha: string };

export type CalledWorkflowDeps = {
  readonly repos: Pick<RepoService, 'handle'>;
  readonly catFiles: CatFilePool;
  /** A repository by owner and name, whoever may see it (the rule is applied here). */
  readonly findRepoByName: (owner: string, name: string) => Promise<Repository | undefined>;
};

/** Called workflow files above this size are not read, as for a run's own (workflow-files.ts). */
const MAX_WORKFLOW_BYTES = 512 * 1024;

/**
 * Reads the workflows a run calls. `./path` is the calling workflow's own repository at the
 * commit it was read at; `owner/repo/path@ref` is a repository of this instance at `ref` (a
 * branch, tag or commit).
 *
 * INVARIANT: a workflow reads another repository's workflow only when anyone may read that
 * repository (public, under a visible owner), or when both repositories have the same owner:
 * a private repository's workflows are callable from its owner's repositories and from nowhere
 * else. Whatever else is named — a private repository of another owner, one that does not
 * exist, a missing ref or file — gets the same "not found", so a call tells nobody what exists.
 */
export function calledWorkflowLoader(deps: CalledWorkflowDeps): WorkflowLoader {
  return async (ref, origin): Promise<LoadedWorkflow> => {
    const from = origin as CallOrigin;
    if (ref.kind === 'local') {
      const content = await readFile(deps, from, ref.path, ref.path);
      return {
        content,
        identity: `${from.repo.id}:${ref.path}@${from.sha}`,
        label: ref.path,
        origin: from,
      };
    }
    const label = callLabel(ref);
    const target = await deps.findRepoByName(ref.owner, ref.repo);
    if (
      target === undefined ||
      !(visibleToAnyone(target) || target.owner.id === from.repo.owner.id)
    ) {
      throw notFound(label);
    }
    const sha = await guard(label, () =>
      resolveCommit(deps.catFiles, deps.repos.handle(target), ref.ref),
    );
    const at = { repo: target, sha };
    const content = await readFile(deps, at, ref.path, label);
    return { content, identity: `${target.id}:${ref.path}@${sha}`, label, origin: at };
  };
}

async function readFile(
  deps: CalledWorkflowDeps,
  at: CallOrigin,
  path: string,
  label: string,
): Promise<string> {
  const blob = await guard(label, () =>
    readBlob(deps.catFiles, deps.repos.handle(at.repo), at.sha, {
      path,
      maxBytes: MAX_WORKFLOW_BYTES,
    }),
  );
  if (blob.truncated) throw new WorkflowError(`called workflow ${label} is too large`);
  return blob.content.toString('utf8');
}

/** What `read` answers; a domain refusal (no such ref or file, a bad name) is "not found". */
async function guard<T>(label: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof DomainError) throw notFound(label);
    throw error;
  }
}

function notFound(label: string): WorkflowError {
  return new WorkflowError(`called workflow ${label} not found`);
}
