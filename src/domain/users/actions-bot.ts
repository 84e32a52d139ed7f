import type { User } from './user.types.ts';

/**
 * The actions bot: the one account CI acts as when a job uses its task token (`GITHUB_TOKEN`),
 * as Gitea's `gitea-actions` user. It is a real row (migration `actions-bot`), so what it
 * writes — pushes, releases, pull requests, comments — names an author that pages can show,
 * never a real person's account. It has no password and owns nothing; its handle is reserved.
 */
export const ACTIONS_BOT_ID = '00000000-0000-4000-8000-0000000ac7b0';
export const ACTIONS_BOT_HANDLE = 'kiln-actions';
export const ACTIONS_BOT_EMAIL = 'kiln-actions@noreply.invalid';
export const ACTIONS_BOT_NAME = 'Kiln Actions';

/**
 * What one task token grants: a level on one repository, for as long as its task runs. A pull
 * request from a fork runs with at most `read`, as GitHub's token does there; every other run
 * with what its job's `permissions:` allow (ci/workflow/permissions.ts), `write` by default.
 */
export type TaskScope = {
  readonly taskId: number;
  readonly repoId: string;
  readonly level: 'none' | 'read' | 'write';
};

/** The actions bot acting for one task: its access comes from `task` and from nothing else. */
export type ActionsBot = User & { readonly task: TaskScope };

/** Whoever acts in the domain: a person, or the actions bot for a task. */
export type Actor = User | ActionsBot;

const EPOCH = new Date(0);

/** The actions bot, acting with the grant of one task token. */
export function actionsBotFor(task: TaskScope): ActionsBot {
  return Object.freeze({
    id: ACTIONS_BOT_ID,
    handle: ACTIONS_BOT_HANDLE,
    kind: 'user',
    email: ACTIONS_BOT_EMAIL,
    fullName: ACTIONS_BOT_NAME,
    description: '',
    createdAt: EPOCH,
    updatedAt: EPOCH,
    task: Object.freeze({ ...task }),
  });
}

/** Whether the account is the actions bot, with or without a task behind it. */
export function isActionsBot(user: Pick<User, 'id'> | undefined): boolean {
  return user?.id === ACTIONS_BOT_ID;
}

/**
 * The task an actor acts for, when it is the actions bot with a live grant. The bot without
 * one (however it was reached) has no access of its own.
 */
export function taskScopeOf(user: User | undefined): TaskScope | undefined {
  return user && isActionsBot(user) && actsForTask(user) ? user.task : undefined;
}

function actsForTask(user: User): user is ActionsBot {
  return 'task' in user;
}
