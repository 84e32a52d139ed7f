import type { AccessLevel, Repository } from '../repos/repo.types.ts';
import { atLeast } from '../repos/repo.types.ts';
import { isActionsBot } from '../users/actions-bot.ts';
import type { User } from '../users/user.types.ts';
import type { WorkflowRun } from './ci.types.ts';
import type { PullTrigger } from './pull-trigger.ts';

/*
 * INVARIANT: a workflow run for a pull request from a fork whose author cannot write to the base
 * repository reaches no runner until someone with write access to the base approves it.
 *
 * - "Author" is whoever's action made the run: the opener on `opened`, the pusher of the head on
 *   `synchronize`, whoever reopened or closed it. Their access to the base is read when the run
 *   is made (never remembered), so a collaborator removed yesterday asks today.
 * - An approval belongs to one pull request and covers the people whose waiting runs it let go:
 *   their later runs of that pull (new pushes, a reopen) do not ask again. A run of the same pull
 *   made by someone else who cannot write (another person pushing to the fork's branch) asks
 *   again, so nobody rides on an approval given for someone else's code; another pull request
 *   of an approved author asks again too.
 * - Branches of the base itself, forks whose author may write (collaborators with write or
 *   admin, the owner, organisation owners, site administrators) and the actions bot never ask.
 *
 * Where it is enforced: such a run is created with `needs_approval` and every job blocked
 * (workflow-run.store.ts); settling keeps them blocked while it waits (run-lifecycle.ts); and,
 * whatever a job's status says, FetchTask neither lists nor claims a job of a run that waits
 * (`runIsCleared`, task-conditions.ts, used by ci-task.store.ts).
 */

/** Whether a run still waits for a writer's approval. Pure. */
export function awaitsApproval(run: Pick<WorkflowRun, 'needsApproval' | 'approvedAt'>): boolean {
  return run.needsApproval && run.approvedAt === null;
}

/** What the rule looks at, read when a run is made. */
export type ApprovalFacts = {
  /** The head branch lives in another repository than the base. */
  readonly fromFork: boolean;
  readonly actor: User;
  /** The actor's access to the base repository, now. */
  readonly access: AccessLevel;
  /** A writer already approved this actor's runs of this pull request. */
  readonly approvedBefore: boolean;
};

/** Whether a run of a pull request must wait for approval (see the invariant above). Pure. */
export function mustAskApproval(facts: ApprovalFacts): boolean {
  if (!facts.fromFork || isActionsBot(facts.actor)) return false;
  return !atLeast(facts.access, 'write') && !facts.approvedBefore;
}

/** What the gate reads: live access, and the approvals a pull request holds. */
export type ForkGateDeps = {
  readonly accessOf: (user: User, repo: Repository) => Promise<AccessLevel>;
  readonly isApproved: (pullId: string, actorId: string) => Promise<boolean>;
};

/** Decides, when a pull request change makes runs, whether they wait for approval. */
export class ForkPullGate {
  readonly #deps: ForkGateDeps;

  constructor(deps: ForkGateDeps) {
    this.#deps = deps;
  }

  async mustAsk(trigger: PullTrigger): Promise<boolean> {
    const fromFork = trigger.head.id !== trigger.base.id;
    if (!fromFork || isActionsBot(trigger.actor)) return false;
    const [access, approvedBefore] = await Promise.all([
      this.#deps.accessOf(trigger.actor, trigger.base),
      this.#deps.isApproved(trigger.pull.id, trigger.actor.id),
    ]);
    return mustAskApproval({ fromFork, actor: trigger.actor, access, approvedBefore });
  }
}
