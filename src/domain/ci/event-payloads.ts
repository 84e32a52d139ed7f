import type { RefChange } from '../../git/refs.ts';
import type { WorkflowFile } from '../../git/workflow-files.ts';
import type { Push } from '../repos/push-events.ts';
import type { Repository } from '../repos/repo.types.ts';
import type { PullTrigger } from './pull-trigger.ts';

/**
 * What a run records about the event that started it: the webhook-shaped payload a job sees as
 * `github.event`, and the `github` context jobs are planned with. Pure.
 */

/** A workflow's file name without its folder (`ci.yml`): how runs name their workflow. */
export function fileName(file: WorkflowFile): string {
  return file.path.slice(file.path.lastIndexOf('/') + 1);
}

/** The webhook-shaped push payload (Gitea's field names) the job sees as `github.event`. */
export function pushPayload(push: Push, change: RefChange, sha: string, title: string) {
  const repository = {
    name: push.repo.name,
    full_name: `${push.repo.owner.handle}/${push.repo.name}`,
    private: push.repo.private,
    fork: push.repo.parentId !== null,
    owner: { login: push.repo.owner.handle, username: push.repo.owner.handle },
  };
  const user = { login: push.pusher.handle, username: push.pusher.handle };
  return {
    ref: change.ref,
    before: change.oldSha ?? '0'.repeat(sha.length),
    after: sha,
    head_commit: { id: sha, message: title },
    repository,
    pusher: user,
    sender: user,
  };
}

/** The webhook-shaped pull request payload (Gitea's field names). */
export function pullPayload(event: PullTrigger) {
  const repo = (r: Repository) => ({
    name: r.name,
    full_name: `${r.owner.handle}/${r.name}`,
    private: r.private,
    fork: r.parentId !== null,
    owner: { login: r.owner.handle, username: r.owner.handle },
  });
  const { pull } = event;
  return {
    action: event.type,
    number: pull.number,
    pull_request: {
      number: pull.number,
      title: pull.title,
      state: pull.state,
      merged: pull.merged,
      head: { ref: pull.headBranch, sha: pull.headSha, repo: repo(event.head) },
      base: { ref: pull.baseBranch, repo: repo(event.base) },
    },
    repository: repo(event.base),
    sender: { login: event.actor.handle, username: event.actor.handle },
  };
}

/** What `${{ github.* }}` means while jobs are planned (names, `runs-on`, concurrency). */
export function githubContext(
  repo: Repository,
  ref: string,
  sha: string,
  actor: string,
  event: unknown,
): Record<string, unknown> {
  return {
    event,
    event_name: 'push',
    ref,
    ref_name: ref.replace(/^refs\/(heads|tags)\//, ''),
    ref_type: ref.startsWith('refs/tags/') ? 'tag' : 'branch',
    sha,
    actor,
    repository: `${repo.owner.handle}/${repo.name}`,
    repository_owner: repo.owner.handle,
  };
}
