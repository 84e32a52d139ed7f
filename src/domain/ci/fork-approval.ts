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
 * - Two people vouch for the code a run would execute, and both must be trusted: whoever's action
 *   made the run (the opener on `opened`, the pusher of the head on `synchronize`, whoever
 *   reopened or closed it) and the pull request's author. So a writer who closes or reopens a
 *   stranger's pull, or pushes onto it, does not thereby run the stranger's code: closing spam
 *   is no review. The one exception is a writer's merge (`closed`, merged): the code is the
 *   base's own from then on, and its pushes run it anyway.
 * - A run executes the pull's head, so whoever pushed that head vouches too. On `synchronize`
 *   they are the actor (each push is announced once, by its pusher: `PullService.
 *   onBranchPushed`); on any other run the last recorded pusher of the head branch must be
 *   trusted as well. So a trusted person's reopen does not run a head someone else pushed and
 *   nobody approved, even if that push's own run was never made.
 * - Trusted is: may write to the base (collaborators with write or admin, the owner,
 *   organisation owners, site administrators), read when the run is made, never remembered, so
 *   a collaborator removed yesterday asks today; or approved for this very pull request.
 * - An approval belongs to one pull request and covers its author, the people whose waiting
 *   runs it let go and the last pusher of its head branch: their later runs of that pull (new pushes, a reopen) do not ask again, as
 *   in Gitea. It covers commits the approver never saw, pushed after the page was read or after
 *   the approval: approving trusts the people, not one commit. A run of the same pull made by
 *   someone else who cannot write (another person pushing to the fork's branch) asks again, so
 *   nobody rides on an approval given for someone else; another pull request asks again too.
 * - Branches of the base itself and the actions bot never ask (the bot starts no pull runs).
 * - Approval only lets jobs reach a runner: a run from a fork gets no secrets and a read-only
 *   task token whether or not it was approved (task-dispatch.service.ts).
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

/** How far one person is trusted with a pull request's code, read when a run is made. */
export type Standing = {
  /** Their access to the base repository, now ('none' for an account that is gone). */
  readonly access: AccessLevel;
  /** A writer already approved this person's runs of this pull request. */
  readonly approved: boolean;
};

/** What the rule looks at, read when a run is made. */
export type ApprovalFacts = {
  /** The head branch lives in another repository than the base. */
  readonly fromFork: boolean;
  /** The change was made by the actions bot. */
  readonly byBot: boolean;
  /** Whoever's action made the run. */
  readonly actor: Standing;
  /** The pull request's author. */
  readonly author: Standing;
  /**
   * Whoever last pushed the head branch, when that is someone other than the actor and the
   * author and the run is not their push's own (`synchronize`, where they are the actor).
   */
  readonly headPusher?: Standing;
  /** The change is the pull request being merged. */
  readonly merged: boolean;
};

function trusted(person: Standing): boolean {
  return atLeast(person.access, 'write') || person.approved;
}

/** Whether a run of a pull request must wait for approval (see the invariant above). Pure. */
export function mustAskApproval(facts: ApprovalFacts): boolean {
  if (!facts.fromFork || facts.byBot) return false;
  if (!trusted(facts.actor)) return true;
  const acceptedByWriter = facts.merged && atLeast(facts.actor.access, 'write');
  if (acceptedByWriter) return false;
  return !trusted(facts.author) || (facts.headPusher !== undefined && !trusted(facts.headPusher));
}

/**
 * The `concurrency` group a run or job really joins. A run of a pull request from a fork runs a
 * stranger's workflow: its groups are its pull's own, so that, approved or not, it can neither
 * cancel (`cancel-in-progress`) nor hold up (queueing) a run of the base's branches or of
 * another pull that names the same group. Runs of one pull still share groups, so
 * cancel-in-progress keeps working between them. Pure.
 */
export function groupOf(run: { forkPull?: boolean; pullId?: string }, group: string): string {
  return run.forkPull === true && run.pullId !== undefined ? `pull ${run.pullId}: ${group}` : group;
}

/** What the gate reads: accounts, live access, and the approvals a pull request holds. */
export type ForkGateDeps = {
  readonly userById: (id: string) => Promise<User | undefined>;
  readonly accessOf: (user: User, repo: Repository) => Promise<AccessLevel>;
  readonly isApproved: (pullId: string, actorId: string) => Promise<boolean>;
  /** Who last pushed `branch` of `repo`, if a push of it was recorded. */
  readonly lastPusherOf: (repo: Repository, branch: string) => Promise<string | undefined>;
};

/** Decides, when a pull request change makes runs, whether they wait for approval. */
export class ForkPullGate {
  readonly #deps: ForkGateDeps;

  constructor(deps: ForkGateDeps) {
    this.#deps = deps;
  }

  async mustAsk(trigger: PullTrigger): Promise<boolean> {
    const { actor, pull, base } = trigger;
    const fromFork = trigger.head.id !== base.id;
    if (!fromFork || isActionsBot(actor)) return false;
    const standing = async (user: User | undefined, id: string): Promise<Standing> => {
      const [access, approved] = await Promise.all([
        user === undefined ? ('none' as const) : this.#deps.accessOf(user, base),
        this.#deps.isApproved(pull.id, id),
      ]);
      return { access, approved };
    };
    const ofId = (id: string) => this.#deps.userById(id).then((person) => standing(person, id));
    // A push's own run has its pusher as actor; any other runs the head someone pushed before.
    const pusherId =
      trigger.type === 'synchronize'
        ? undefined
        : await this.#deps.lastPusherOf(trigger.head, pull.headBranch);
    const [actorStanding, authorStanding, pusherStanding] = await Promise.all([
      standing(actor, actor.id),
      pull.authorId === actor.id ? undefined : ofId(pull.authorId),
      pusherId === undefined || pusherId === actor.id || pusherId === pull.authorId
        ? undefined
        : ofId(pusherId),
    ]);
    return mustAskApproval({
      fromFork,
      byBot: false,
      actor: actorStanding,
      author: authorStanding ?? actorStanding,
      ...(pusherStanding ? { headPusher: pusherStanding } : {}),
      merged: trigger.type === 'closed' && pull.merged,
    });
  }
}
