import { isOneOf } from '../../lib/narrow.ts';
import { Invalid, NotFound } from '../errors.ts';
import type { UserService } from '../users/user.service.ts';
import { isUser, type User } from '../users/user.types.ts';
import type { CollaboratorStore } from './collaborator.store.ts';
import type { RepoService } from './repo.service.ts';
import type { AccessLevel, CollaboratorPermission, Repository } from './repo.types.ts';

const PERMISSIONS: readonly CollaboratorPermission[] = ['read', 'write', 'admin'];

export function parseCollaboratorPermission(value: unknown): CollaboratorPermission {
  if (value === undefined || value === null || value === '') return 'write';
  if (isOneOf(PERMISSIONS, value)) return value;
  throw new Invalid('permission must be one of read, write, admin');
}

/** Who else may read, push to, or administer a repository. Managed by its admins. */
export class CollaboratorService {
  readonly #repos: RepoService;
  readonly #store: CollaboratorStore;
  readonly #users: UserService;

  constructor(repos: RepoService, store: CollaboratorStore, users: UserService) {
    this.#repos = repos;
    this.#store = store;
    this.#users = users;
  }

  async list(viewer: User | undefined, owner: string, name: string) {
    const { repo } = await this.#repos.get(viewer, owner, name);
    const rows = await this.#store.list(repo.id);
    const accounts = await this.#users.findManyByIds(rows.map((row) => row.userId));
    return rows.flatMap((row) => {
      const account = accounts.get(row.userId);
      return account && isUser(account) ? [{ user: account, permission: row.permission }] : [];
    });
  }

  async put(
    actor: User,
    owner: string,
    name: string,
    handle: string,
    permission: CollaboratorPermission,
  ) {
    const { repo } = await this.#repos.require(actor, owner, name, 'admin');
    const user = await this.#users.getUser(handle);
    if (user.id === repo.owner.id)
      throw new Invalid('the owner of a repository cannot be a collaborator on it');
    await this.#store.put(repo.id, user.id, permission);
  }

  async remove(actor: User, owner: string, name: string, handle: string): Promise<void> {
    const { repo } = await this.#repos.require(actor, owner, name, 'admin');
    const user = await this.#users.getUser(handle);
    if (!(await this.#store.delete(repo.id, user.id))) {
      throw new NotFound(`${handle} is not a collaborator`);
    }
  }

  /** Whether `handle` is a collaborator; NotFound when not (Gitea answers 404). */
  async check(
    viewer: User | undefined,
    owner: string,
    name: string,
    handle: string,
  ): Promise<void> {
    const { repo } = await this.#repos.get(viewer, owner, name);
    const user = await this.#users.getUser(handle);
    if (!(await this.#store.findPermission(repo.id, user.id))) {
      throw new NotFound(`${handle} is not a collaborator`);
    }
  }

  /** A person's effective access, as Gitea's collaborator permission endpoint reports it. */
  async permissionOf(viewer: User | undefined, owner: string, name: string, handle: string) {
    const { repo } = await this.#repos.get(viewer, owner, name);
    const user = await this.#users.getUser(handle);
    const level: AccessLevel = await this.#repos.accessOf(user, repo);
    return { user, repo: repo as Repository, level, isOwner: repo.owner.id === user.id };
  }
}
