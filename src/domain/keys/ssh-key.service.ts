import { foldId, newId } from '../../lib/ids.ts';
import { isKeyProblem, parseSshPublicKey } from '../../lib/ssh-public-key.ts';
import { Invalid, NotFound, Unauthenticated } from '../errors.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository } from '../repos/repo.types.ts';
import type { UserService } from '../users/user.service.ts';
import type { User } from '../users/user.types.ts';
import type { SshKeyStore } from './ssh-key.store.ts';
import type { NewSshKey, SshKey } from './ssh-key.types.ts';

/** A key's use is written at most this often, so a busy key costs no write per clone. */
const TOUCH_EVERY_MS = 60_000;
const MAX_TITLE = 255;

/** What the service reads and writes. */
export type SshKeyServiceDeps = {
  readonly store: Pick<
    SshKeyStore,
    'insert' | 'findByFingerprint' | 'listByUser' | 'listByRepo' | 'delete' | 'touch'
  >;
  readonly users: Pick<UserService, 'findActiveUser'>;
  readonly repos: Pick<RepoService, 'require' | 'findById'>;
};

/** A person's keys and the deploy keys of repositories: adding, listing, removing, reading. */
export class SshKeyService {
  readonly #deps: SshKeyServiceDeps;

  constructor(deps: SshKeyServiceDeps) {
    this.#deps = deps;
  }

  /** The person's keys, oldest first. */
  async listUserKeys(user: Pick<User, 'id'>): Promise<SshKey[]> {
    return this.#deps.store.listByUser(user.id);
  }

  /**
   * Adds a key to a person's account.
   *
   * @throws Invalid when the key is malformed, refused (DSA, short RSA, private) or in use.
   */
  async addUserKey(user: Pick<User, 'id'>, input: NewSshKey): Promise<SshKey> {
    // Gitea's user keys are never read-only: the flag belongs to deploy keys.
    return this.#add(input, { kind: 'user', userId: user.id }, false);
  }

  /** One of the person's keys by its wire id; NotFound for anyone else's. */
  async getUserKey(user: Pick<User, 'id'>, wireId: number): Promise<SshKey> {
    return pick(await this.#deps.store.listByUser(user.id), wireId);
  }

  async deleteUserKey(user: Pick<User, 'id'>, wireId: number): Promise<void> {
    await this.#deps.store.delete((await this.getUserKey(user, wireId)).id);
  }

  /**
   * A repository's deploy keys; only its administrators may see them. Someone not signed in is
   * asked to (Unauthenticated, as Gitea asks for a token first), but only about a repository
   * they can see: a private one stays missing to them.
   */
  async listDeployKeys(viewer: User | undefined, owner: string, name: string) {
    if (!viewer) {
      await this.#deps.repos.require(viewer, owner, name, 'read');
      throw new Unauthenticated('token is required');
    }
    const { repo } = await this.#deps.repos.require(viewer, owner, name, 'admin');
    return { repo, keys: await this.#deps.store.listByRepo(repo.id) };
  }

  /**
   * Adds a deploy key to a repository its administrator names; read-only unless asked otherwise
   * (`read_only: false`), as Gitea does. Its pushes are attributed to the one who added it.
   */
  async addDeployKey(viewer: User, owner: string, name: string, input: NewSshKey) {
    const { repo } = await this.#deps.repos.require(viewer, owner, name, 'admin');
    const key = await this.#add(
      input,
      { kind: 'deploy', repoId: repo.id, addedBy: viewer.id },
      input.readOnly ?? true,
    );
    return { repo, key };
  }

  async getDeployKey(viewer: User | undefined, owner: string, name: string, wireId: number) {
    const { repo, keys } = await this.listDeployKeys(viewer, owner, name);
    return { repo, key: pick(keys, wireId) };
  }

  async deleteDeployKey(viewer: User, owner: string, name: string, wireId: number) {
    const { key } = await this.getDeployKey(viewer, owner, name, wireId);
    await this.#deps.store.delete(key.id);
  }

  /**
   * Who a connecting key speaks for: the key and its active owner (a person, or for a deploy
   * key its repository and whoever added it). Undefined for an unknown key, a disabled or
   * removed person, a repository that is gone. One indexed query finds the key.
   */
  async identify(fingerprint: string): Promise<SshPrincipal | undefined> {
    const key = await this.#deps.store.findByFingerprint(fingerprint);
    if (!key) return undefined;
    if (key.owner.kind === 'user') {
      const user = await this.#deps.users.findActiveUser(key.owner.userId);
      return user && { kind: 'user', key, user };
    }
    const repo = await this.#deps.repos.findById(key.owner.repoId);
    if (!repo) return undefined;
    const { addedBy } = key.owner;
    const pusher = addedBy ? await this.#deps.users.findActiveUser(addedBy) : undefined;
    return { kind: 'deploy', key, repo, pusher };
  }

  /** Records that `key` was used now, at most once a minute. */
  async touch(key: SshKey, now = Date.now()): Promise<void> {
    if (key.lastUsedAt && now - key.lastUsedAt.getTime() < TOUCH_EVERY_MS) return;
    await this.#deps.store.touch(key.id, now, now - TOUCH_EVERY_MS);
  }

  async #add(input: NewSshKey, owner: SshKey['owner'], readOnly: boolean): Promise<SshKey> {
    const title = input.title.trim();
    if (title === '') throw new Invalid('the key needs a title');
    if (title.length > MAX_TITLE) throw new Invalid(`the title is longer than ${MAX_TITLE}`);
    const parsed = parseSshPublicKey(input.key);
    if (isKeyProblem(parsed)) throw new Invalid(parsed.problem);
    const key: SshKey = {
      id: newId(),
      fingerprint: parsed.fingerprint,
      title,
      keyType: parsed.type,
      publicKey: parsed.text,
      readOnly,
      createdAt: new Date(),
      lastUsedAt: null,
      owner,
    };
    await this.#deps.store.insert(key);
    return key;
  }
}

/** Who an SSH key speaks for, once it is known and its owner may act. */
export type SshPrincipal =
  | { readonly kind: 'user'; readonly key: SshKey; readonly user: User }
  | {
      readonly kind: 'deploy';
      readonly key: SshKey;
      readonly repo: Repository;
      /** Who added the key, while they may act: pushes are theirs. */
      readonly pusher: User | undefined;
    };

function pick(keys: readonly SshKey[], wireId: number): SshKey {
  const found = keys.find((key) => foldId(key.id) === wireId);
  if (!found) throw new NotFound('public key does not exist');
  return found;
}

/** A stored key that no longer reads as one Kiln accepts, and why. */
export type UnreadableKey = { readonly key: SshKey; readonly problem: string };

/**
 * Every stored key that no longer reads as one Kiln accepts (`kiln doctor`): a row changed by
 * hand, or a rule made stricter since the key was added. Read in pages, so any number of keys
 * is checked in bounded memory.
 */
export async function unreadableKeys(store: Pick<SshKeyStore, 'page'>): Promise<UnreadableKey[]> {
  const found: UnreadableKey[] = [];
  for (let after = ''; ; ) {
    const page = await store.page(after, 500);
    for (const key of page) {
      const parsed = parseSshPublicKey(key.publicKey);
      if (isKeyProblem(parsed)) found.push({ key, problem: parsed.problem });
      else if (parsed.fingerprint !== key.fingerprint) {
        found.push({ key, problem: 'its fingerprint does not match the key' });
      }
    }
    const last = page.at(-1);
    if (page.length < 500 || !last) return found;
    after = last.id;
  }
}
