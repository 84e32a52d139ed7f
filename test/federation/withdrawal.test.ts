/**
 * The fediverse is served only what an anonymous web visitor may see now. Generated sequences
 * of creating, pushing to, following, hiding, showing and deleting repositories (and hiding or
 * showing their organisation) check after every step that each federation URL answers as the
 * web page does, that no activity about something hidden is served, and that every follower of
 * something that stopped being visible was sent its `Delete`.
 */

import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { eventually } from '../support/eventually.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import type { TestServer } from '../support/server.ts';
import { AP, FediverseActor, startFederatedKiln } from './support.ts';

type Slot = 'a' | 'b' | 'c';
type Target = Slot | 'owner' | 'org';
type Op =
  | { readonly kind: 'create'; readonly slot: Slot; readonly hidden: boolean }
  | { readonly kind: 'push'; readonly slot: Slot }
  | { readonly kind: 'follow'; readonly target: Target; readonly remote: number }
  | { readonly kind: 'hide'; readonly slot: Slot; readonly hidden: boolean }
  | { readonly kind: 'delete'; readonly slot: Slot }
  | { readonly kind: 'org'; readonly hidden: boolean };

let kiln: TestServer;
let git: GitClient;
const remotes = [new FediverseActor(), new FediverseActor()];
let run = 0;

beforeAll(async () => {
  kiln = await startFederatedKiln();
  git = await GitClient.create();
  for (const remote of remotes) {
    remote.rememberKeys = true;
    await remote.start();
  }
});
afterAll(async () => {
  await kiln?.close();
  await git?.dispose();
  for (const remote of remotes) await remote.stop();
});

const slot = fc.constantFrom<Slot>('a', 'b', 'c');
const ops = fc.array(
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({ kind: fc.constant('create' as const), slot, hidden: fc.boolean() }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('push' as const), slot }) },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('follow' as const),
        target: fc.constantFrom<Target>('a', 'b', 'c', 'owner', 'org'),
        remote: fc.constantFrom(0, 1),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant('hide' as const), slot, hidden: fc.boolean() }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), slot }) },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant('org' as const), hidden: fc.boolean() }),
    },
  ),
  { minLength: 3, maxLength: 12 },
);

/** The ways in described: a repository made private, one deleted, an organisation hidden. */
const described: Op[][] = [
  [
    { kind: 'create', slot: 'a', hidden: false },
    { kind: 'follow', target: 'a', remote: 0 },
    { kind: 'follow', target: 'owner', remote: 1 },
    { kind: 'create', slot: 'b', hidden: false },
    { kind: 'push', slot: 'a' },
    { kind: 'hide', slot: 'a', hidden: true },
    { kind: 'hide', slot: 'a', hidden: false },
    { kind: 'follow', target: 'b', remote: 1 },
    { kind: 'delete', slot: 'b' },
  ],
  [
    { kind: 'follow', target: 'org', remote: 0 },
    { kind: 'create', slot: 'c', hidden: false },
    { kind: 'follow', target: 'c', remote: 1 },
    { kind: 'push', slot: 'c' },
    { kind: 'org', hidden: true },
    { kind: 'org', hidden: false },
  ],
];

/** One sequence's world: a person, their organisation, and up to three repositories. */
class Sequence {
  readonly #owner: User;
  readonly #token: string;
  readonly #org: string;
  readonly #made = new Set<Slot>();
  readonly #n = ++run;

  private constructor(owner: User, token: string, org: string) {
    this.#owner = owner;
    this.#token = token;
    this.#org = org;
  }

  static async start(): Promise<Sequence> {
    const { user, token } = await kiln.make.userWithToken();
    const org = await kiln.make.org(user);
    return new Sequence(user, token, org.handle);
  }

  /** Owner handle and name of a slot's repository, and its page path (also its actor's path). */
  path(target: Target): string {
    if (target === 'owner') return `/${this.#owner.handle}`;
    if (target === 'org') return `/${this.#org}`;
    return `/${target === 'c' ? this.#org : this.#owner.handle}/${target}${this.#n}`;
  }

  actorId(target: Target): string {
    const path = this.path(target);
    return target === 'owner' || target === 'org'
      ? `${kiln.url}${path}`
      : `${kiln.url}/repos${path}`;
  }

  targets(): Target[] {
    return ['a', 'b', 'c', 'owner', 'org'];
  }

  async apply(op: Op): Promise<void> {
    const api = (method: string, path: string, body?: object) =>
      fetch(`${kiln.url}/api/v1${path}`, {
        method,
        headers: { authorization: `token ${this.#token}`, 'content-type': 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    if (op.kind === 'create' && !this.#made.has(op.slot)) {
      const where = op.slot === 'c' ? `/orgs/${this.#org}/repos` : '/user/repos';
      const name = this.path(op.slot).split('/')[2];
      expect((await api('POST', where, { name, private: op.hidden })).status).toBe(201);
      this.#made.add(op.slot);
    } else if (op.kind === 'push' && this.#made.has(op.slot)) {
      const dir = await git.init();
      await git.commit(dir, { 'f.txt': String(Math.random()) }, 'a change');
      const [, owner = '', name = ''] = this.path(op.slot).split('/');
      const url = repoUrl(kiln.url, owner, name, { token: this.#token, as: 'username' });
      await git.ok(['push', '--force', url, 'main'], { cwd: dir });
    } else if (op.kind === 'hide' && this.#made.has(op.slot)) {
      expect(
        (await api('PATCH', `/repos${this.path(op.slot)}`, { private: op.hidden })).status,
      ).toBe(200);
    } else if (op.kind === 'delete' && this.#made.has(op.slot)) {
      expect((await api('DELETE', `/repos${this.path(op.slot)}`)).status).toBe(204);
      this.#made.delete(op.slot);
    } else if (op.kind === 'org') {
      await kiln.app.services.orgs.updateSettings(this.#owner, this.#org, {
        fullName: '',
        description: '',
        website: '',
        visibility: op.hidden ? 'private' : 'public',
      });
    }
  }

  /** Sends a `Follow` of `target` from `remote`; answers the follow's id. */
  async follow(target: Target, remote: FediverseActor): Promise<string> {
    const id = `${remote.id}#follow-${Math.random().toString(36).slice(2)}`;
    const follow = { id, type: 'Follow', actor: remote.id, object: this.actorId(target) };
    const sent = await remote.send(`${kiln.url}/federation/inbox`, {
      '@context': 'https://www.w3.org/ns/activitystreams',
      ...follow,
    });
    expect(sent.status).toBe(202);
    return id;
  }

  /** Whether an anonymous visitor sees the page of `target` now. */
  async visible(target: Target): Promise<boolean> {
    const status = (await fetch(`${kiln.url}${this.path(target)}`)).status;
    expect([200, 404]).toContain(status);
    return status === 200;
  }
}

const get = (url: string) => fetch(url, { headers: { accept: AP } });

/** Waits until every queued delivery and announcement has been handled. */
async function drained(): Promise<void> {
  const { db } = kiln.app.database;
  const left = async () =>
    Number(
      (await sql<{ n: number }>`select count(*) as n from federation_queue`.execute(db)).rows[0]
        ?.n ?? 0,
    );
  expect(await eventually(async () => (await left()) === 0, 30_000)).toBe(true);
}

it('serves the fediverse only what an anonymous visitor sees, and withdraws the rest', async () => {
  await fc.assert(
    fc.asyncProperty(ops, async (steps) => {
      const world = await Sequence.start();
      const followed = new Map<string, Set<FediverseActor>>();
      let before = new Map<Target, boolean>();
      for (const target of world.targets()) before.set(target, await world.visible(target));
      for (const op of steps) {
        const follow =
          op.kind === 'follow'
            ? { remote: remotes[op.remote] as FediverseActor, target: op.target }
            : undefined;
        const followId = follow ? await world.follow(follow.target, follow.remote) : undefined;
        await world.apply(op);
        await drained();
        if (follow && followId) {
          const accepted = follow.remote.received.some(
            (r) =>
              r.activity.type === 'Accept' &&
              (r.activity.object as { id?: string }).id === followId,
          );
          const id = world.actorId(follow.target);
          expect(accepted, `Accept of a follow of ${id}`).toBe(before.get(follow.target));
          if (accepted) followed.set(id, new Set([...(followed.get(id) ?? []), follow.remote]));
        }
        const now = new Map<Target, boolean>();
        for (const target of world.targets()) {
          const visible = await world.visible(target);
          now.set(target, visible);
          const id = world.actorId(target);
          const want = visible ? 200 : 404;
          expect((await get(id)).status, `${id} after ${JSON.stringify(op)}`).toBe(want);
          const endpoints =
            target === 'owner' || target === 'org'
              ? `/users${world.path(target)}`
              : `/repos${world.path(target)}`;
          for (const collection of ['outbox', 'followers', 'outbox?page=1']) {
            const url = `${kiln.url}/federation${endpoints}/${collection}`;
            expect((await get(url)).status, url).toBe(want);
          }
          // Something that stopped being visible was withdrawn from each of its followers.
          if (before.get(target) && !visible) {
            for (const remote of followed.get(id) ?? []) {
              expect(
                remote.received.some(
                  (r) =>
                    r.activity.type === 'Delete' &&
                    r.activity.actor === id &&
                    (r.activity.object as { id?: string }).id === id,
                ),
                `Delete of ${id}`,
              ).toBe(true);
            }
            followed.delete(id);
          }
        }
        // A note about a repository that is hidden now was deleted from whoever got it.
        for (const remote of remotes) {
          for (const { activity } of remote.received) {
            const note = activity.object as { id?: string; type?: string; context?: string };
            const about = world.targets().find((t) => world.actorId(t) === note?.context);
            if (activity.type !== 'Create' || about === undefined || now.get(about)) continue;
            const deleted = remote.received.some(
              (r) =>
                r.activity.type === 'Delete' &&
                ((r.activity.object as { id?: string }).id === note.id ||
                  (r.activity.object as { id?: string }).id === activity.actor),
            );
            expect(deleted, `Delete of ${note.id}`).toBe(true);
          }
        }
        // Every activity a follower ever got is served only while what it is about is visible.
        for (const remote of remotes) {
          for (const { activity } of remote.received) {
            if (!['Create', 'Push'].includes(String(activity.type))) continue;
            const object = activity.object as { context?: string; url?: string };
            const subject = String(
              activity.context ?? object.context ?? object.url ?? activity.actor,
            );
            const target = world.targets().find((t) => world.actorId(t) === subject);
            if (target === undefined) continue;
            const served = (await get(String(activity.id))).status;
            if (served === 200) expect(now.get(target), `${activity.id} served`).toBe(true);
          }
        }
        before = now;
      }
    }),
    { numRuns: 10, examples: described.map((steps) => [steps]) },
  );
}, 300_000);

it('does not serve an activity about a hidden repository, whoever published it', async () => {
  const world = await Sequence.start();
  await world.apply({ kind: 'create', slot: 'a', hidden: true });
  const federation = kiln.app.services.federation;
  if (!federation) throw new Error('federation is off');
  const owner = await federation.actors.get({ kind: 'user', handle: world.path('owner').slice(1) });
  // An announcement that slipped past the withdrawal (say, written while it ran).
  const uuid = crypto.randomUUID();
  const id = federation.urls.activity(uuid);
  const about = world.actorId('a');
  await federation.outbox.add(uuid, owner.key, {
    id,
    type: 'Create',
    actor: owner.id,
    object: { id: `${id}/note`, type: 'Note', url: about, context: about },
  });
  expect((await get(id)).status).toBe(404);
  const page = await get(`${kiln.url}/federation/users${world.path('owner')}/outbox?page=1`);
  expect(JSON.stringify(await page.json())).not.toContain(id);
  await world.apply({ kind: 'hide', slot: 'a', hidden: false });
  expect((await get(id)).status).toBe(200);
});
