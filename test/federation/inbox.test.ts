import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import type { Json } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { AP, FediverseActor, startFederatedKiln } from './support.ts';

/**
 * Kiln as seen from a Mastodon-like server built on Fedify's own library: follows, stars,
 * deliveries of pushes and releases, and the signature rules of the inbox.
 */
describe('federation inbox and delivery', () => {
  let kiln: TestServer;
  let remote: FediverseActor;
  let git: GitClient;
  let owner: string;
  let token: string;
  let repoId: string;

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${kiln.url}/api/v1${path}`, {
      ...init,
      headers: {
        authorization: `token ${token}`,
        'content-type': 'application/json',
        ...init.headers,
      },
    });
  const createRepo = async (name: string, isPrivate: boolean) => {
    const response = await api('/user/repos', {
      method: 'POST',
      body: JSON.stringify({ name, private: isPrivate }),
    });
    expect(response.status).toBe(201);
  };
  const stars = async () =>
    ((await (await api(`/repos/${owner}/open`)).json()) as { stars_count: number }).stars_count;
  const of = (type: string) => remote.received.filter((r) => r.activity.type === type);

  beforeAll(async () => {
    kiln = await startFederatedKiln();
    remote = new FediverseActor();
    await remote.start();
    git = await GitClient.create();
    const made = await kiln.make.userWithToken();
    owner = made.user.handle;
    token = made.token;
    await createRepo('open', false);
    await createRepo('secret', true);
    repoId = `${kiln.url}/repos/${owner}/open`;
  });
  afterAll(async () => {
    await kiln?.close();
    await remote?.stop();
    await git?.dispose();
  });

  it('a Follow of a repository is stored and answered with an Accept', async () => {
    const follow = {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${remote.id}#follow-1`,
      type: 'Follow',
      actor: remote.id,
      object: repoId,
    };
    const response = await remote.send(`${kiln.url}/federation/repos/${owner}/open/inbox`, follow);
    expect(response.status).toBe(202);
    expect(await eventually(async () => of('Accept').length === 1)).toBe(true);
    const [accept] = of('Accept');
    expect(accept?.verifiedBy).toBe(repoId);
    expect((accept!.activity.object as { id: string }).id).toBe(follow.id);
    // A replay changes nothing: still one follower.
    expect((await remote.send(`${kiln.url}/federation/inbox`, follow)).status).toBe(202);
    const followers = (await (
      await fetch(`${kiln.url}/federation/repos/${owner}/open/followers`)
    ).json()) as { totalItems: number };
    expect(followers.totalItems).toBe(1);
    const page = (await (
      await fetch(`${kiln.url}/federation/repos/${owner}/open/followers?page=1`)
    ).json()) as { orderedItems: string[] };
    expect(page.orderedItems).toEqual([remote.id]);
  });

  it('a push reaches followers as a ForgeFed Push with its commits, newest first, and a Note', async () => {
    const dir = await git.init();
    const first = await git.commit(dir, { 'a.txt': 'a' }, 'first commit');
    const second = await git.commit(dir, { 'b.txt': 'b' }, 'second commit\n\nwith a body');
    await git.ok(['push', repoUrl(kiln.url, owner, 'open', { token, as: 'username' }), 'main'], {
      cwd: dir,
    });
    expect(await eventually(async () => of('Push').length === 1)).toBe(true);
    const [push] = of('Push');
    const activity: Json = push?.activity;
    expect(push?.verifiedBy).toBe(repoId);
    expect(activity.actor).toBe(repoId);
    expect(activity.attributedTo).toBe(`${kiln.url}/${owner}`);
    expect(activity.target).toMatchObject({ type: 'Branch', name: 'main', ref: 'refs/heads/main' });
    expect(activity.object.type).toBe('OrderedCollection');
    expect(activity.object.totalItems).toBe(2);
    expect(activity.object.orderedItems.map((c: { hash: string }) => c.hash)).toEqual([
      second,
      first,
    ]);
    expect(activity.object.orderedItems[0]).toMatchObject({
      type: 'Commit',
      summary: 'second commit',
      description: 'with a body',
    });
    expect(await eventually(async () => of('Create').length === 1)).toBe(true);
    expect((of('Create')[0]!.activity.object as { type: string }).type).toBe('Note');
    const outbox = (await (
      await fetch(`${kiln.url}/federation/repos/${owner}/open/outbox?page=1`)
    ).json()) as { orderedItems: { type: string }[] };
    expect(outbox.orderedItems.map((item) => item.type).sort()).toEqual(['Create', 'Push']);
  });

  it('a release reaches followers as a Create with its notes and a link', async () => {
    const response = await api(`/repos/${owner}/open/releases`, {
      method: 'POST',
      body: JSON.stringify({ tag_name: 'v1.0.0', name: 'First', body: 'Notes & more' }),
    });
    expect(response.status).toBe(201);
    expect(await eventually(async () => of('Create').length === 2)).toBe(true);
    const note = of('Create')[1]?.activity.object as { content: string; url: string };
    expect(note.content).toContain('Notes &#38; more');
    expect(note.url).toBe(`${repoId}/releases`);
  });

  it('a Like stars the repository once; Undo takes the star back', async () => {
    expect(await stars()).toBe(0);
    const like = { id: `${remote.id}#like-1`, type: 'Like', actor: remote.id, object: repoId };
    expect(
      (await remote.send(`${kiln.url}/federation/repos/${owner}/open/inbox`, like)).status,
    ).toBe(202);
    expect(
      (await remote.send(`${kiln.url}/federation/repos/${owner}/open/inbox`, like)).status,
    ).toBe(202);
    expect(await stars()).toBe(1);
    const undo = { id: `${remote.id}#undo-like-1`, type: 'Undo', actor: remote.id, object: like };
    expect((await remote.send(`${kiln.url}/federation/inbox`, undo)).status).toBe(202);
    expect(await stars()).toBe(0);
    // The Like arriving late, after its Undo, changes nothing.
    expect((await remote.send(`${kiln.url}/federation/inbox`, like)).status).toBe(202);
    expect(await stars()).toBe(0);
  });

  it('refuses unsigned, wrongly signed and tampered POSTs with 401', async () => {
    const inbox = `${kiln.url}/federation/repos/${owner}/open/inbox`;
    const like = { id: `${remote.id}#like-2`, type: 'Like', actor: remote.id, object: repoId };
    const unsigned = await fetch(inbox, {
      method: 'POST',
      headers: { 'content-type': AP },
      body: JSON.stringify(like),
    });
    expect(unsigned.status).toBe(401);

    const signed = await remote.signed(inbox, like);
    const tampered = await fetch(inbox, {
      method: 'POST',
      headers: signed.headers,
      body: JSON.stringify({ ...like, id: `${remote.id}#like-3` }),
    });
    expect(tampered.status).toBe(401);

    const impostor = new FediverseActor();
    await impostor.start();
    try {
      // Signed by a real key, but claiming to be someone else.
      const claim = await impostor.signed(inbox, like);
      expect((await fetch(claim)).status).toBe(401);
      const header = (await remote.signed(inbox, like)).headers.get('signature') ?? '';
      const forged = new Headers(signed.headers);
      forged.set('signature', header.replace(/signature="[^"]+"/, 'signature="AAAA"'));
      expect(
        (await fetch(inbox, { method: 'POST', headers: forged, body: JSON.stringify(like) }))
          .status,
      ).toBe(401);
    } finally {
      await impostor.stop();
    }
    expect(await stars()).toBe(0);
  });

  it('a private repository has no inbox and its pushes are never delivered', async () => {
    const follow = {
      id: `${remote.id}#follow-secret`,
      type: 'Follow',
      actor: remote.id,
      object: `${kiln.url}/repos/${owner}/secret`,
    };
    const direct = await remote.send(`${kiln.url}/federation/repos/${owner}/secret/inbox`, follow);
    expect(direct.status).toBe(404);
    expect((await remote.send(`${kiln.url}/federation/inbox`, follow)).status).toBe(202);
    const before = remote.received.length;
    const dir = await git.init();
    await git.commit(dir, { 's.txt': 's' }, 'secret commit');
    await git.ok(['push', repoUrl(kiln.url, owner, 'secret', { token, as: 'username' }), 'main'], {
      cwd: dir,
    });
    // A public push made after it is delivered; nothing of the private one comes before it.
    const open = await git.init();
    await git.commit(open, { 'o.txt': 'o' }, 'open again');
    await git.ok(
      ['push', '--force', repoUrl(kiln.url, owner, 'open', { token, as: 'username' }), 'main'],
      { cwd: open },
    );
    expect(await eventually(async () => of('Push').length === 2)).toBe(true);
    // Only the refusal of the follow names it (it quotes the follow the remote sent).
    const after = remote.received
      .slice(before)
      .filter((r) => r.activity.type !== 'Reject')
      .map((r) => JSON.stringify(r.activity));
    expect(after.some((text) => text.includes('/secret'))).toBe(false);
  });

  it("a Follow of a private, missing or the server's own actor is answered with a Reject", async () => {
    const instance = `${kiln.url}/federation/actor`;
    for (const [name, object] of [
      ['private', `${kiln.url}/repos/${owner}/secret`],
      ['missing', `${kiln.url}/repos/${owner}/nothing-here`],
      ['server', instance],
    ] as const) {
      const follow = {
        id: `${remote.id}#follow-${name}`,
        type: 'Follow',
        actor: remote.id,
        object,
      };
      expect((await remote.send(`${kiln.url}/federation/inbox`, follow)).status).toBe(202);
      const rejected = () =>
        of('Reject').find((r) => (r.activity.object as { id?: string }).id === follow.id);
      expect(await eventually(async () => rejected() !== undefined)).toBe(true);
      expect(rejected()?.activity.actor).toBe(instance);
      expect(rejected()?.verifiedBy).toBe(instance);
    }
    const followers = await fetch(`${kiln.url}/federation/actor/followers`);
    expect(((await followers.json()) as { totalItems: number }).totalItems).toBe(0);
  });

  it('Undo of a Follow stops deliveries', async () => {
    const follow = {
      id: `${remote.id}#follow-1`,
      type: 'Follow',
      actor: remote.id,
      object: repoId,
    };
    const undo = {
      id: `${remote.id}#undo-follow-1`,
      type: 'Undo',
      actor: remote.id,
      object: follow,
    };
    expect((await remote.send(`${kiln.url}/federation/inbox`, undo)).status).toBe(202);
    const followers = (await (
      await fetch(`${kiln.url}/federation/repos/${owner}/open/followers`)
    ).json()) as { totalItems: number };
    expect(followers.totalItems).toBe(0);
  });

  it('believes a sender that rotated its key once it publishes the new one', async () => {
    const rotating = new FediverseActor();
    await rotating.start();
    try {
      const like = { id: `${rotating.id}#like`, type: 'Like', actor: rotating.id, object: repoId };
      const inbox = `${kiln.url}/federation/repos/${owner}/open/inbox`;
      const before = await stars();
      // Kiln now holds the sender's actor, and with it the old key.
      expect((await rotating.send(inbox, like)).status).toBe(202);
      expect(await stars()).toBe(before + 1);
      await rotating.rotateKey();
      const undo = { id: `${rotating.id}#undo`, type: 'Undo', actor: rotating.id, object: like };
      expect((await rotating.send(inbox, undo)).status).toBe(202);
      expect(await stars()).toBe(before);
    } finally {
      await rotating.stop();
    }
  });

  it('takes RFC 9421 signatures, and signs that way for a server that refuses draft-cavage', async () => {
    const picky = new FediverseActor();
    await picky.start();
    try {
      picky.rfc9421Only = true;
      const follow = { id: `${picky.id}#follow`, type: 'Follow', actor: picky.id, object: repoId };
      const signed = await picky.signed(`${kiln.url}/federation/inbox`, follow, 'rfc9421');
      expect(signed.headers.get('signature-input')).toContain('content-digest');
      expect((await fetch(signed)).status).toBe(202);
      expect(
        await eventually(async () => picky.received.some((r) => r.activity.type === 'Accept')),
      ).toBe(true);
      expect(picky.signatureKinds.slice(0, 2)).toEqual(['draft-cavage', 'rfc9421']);
    } finally {
      await picky.stop();
    }
  });

  it('an actor deleting itself takes its follows and stars along', async () => {
    const leaving = new FediverseActor();
    await leaving.start();
    try {
      const inbox = `${kiln.url}/federation/inbox`;
      const follow = { id: `${leaving.id}#f`, type: 'Follow', actor: leaving.id, object: repoId };
      const like = { id: `${leaving.id}#l`, type: 'Like', actor: leaving.id, object: repoId };
      expect((await leaving.send(inbox, follow)).status).toBe(202);
      expect((await leaving.send(inbox, like)).status).toBe(202);
      const followers = async () =>
        (
          (await (
            await fetch(`${kiln.url}/federation/repos/${owner}/open/followers?page=1`)
          ).json()) as {
            orderedItems: string[];
          }
        ).orderedItems;
      expect(await followers()).toContain(leaving.id);
      const starsBefore = await stars();
      const gone = {
        id: `${leaving.id}#delete`,
        type: 'Delete',
        actor: leaving.id,
        object: leaving.id,
      };
      expect((await leaving.send(inbox, gone)).status).toBe(202);
      expect(await followers()).not.toContain(leaving.id);
      expect(await stars()).toBe(starsBefore - 1);
    } finally {
      await leaving.stop();
    }
  });

  it('unknown activity types are accepted and ignored', async () => {
    const odd = { id: `${remote.id}#odd`, type: 'Dislike', actor: remote.id, object: repoId };
    expect((await remote.send(`${kiln.url}/federation/inbox`, odd)).status).toBe(202);
  });
});

describe('a blocked instance', () => {
  it('has its activities refused with 403 and gets no deliveries', async () => {
    const blocked = new FediverseActor();
    const allowed = new FediverseActor();
    await Promise.all([blocked.start(), allowed.start()]);
    const kiln = await startFederatedKiln({
      SERVICE_FEDERATION_BLOCKED_HOSTS: new URL(blocked.id).host,
    });
    try {
      const { user, token } = await kiln.make.userWithToken();
      const follow = (actor: FediverseActor) => ({
        id: `${actor.id}#f`,
        type: 'Follow',
        actor: actor.id,
        object: `${kiln.url}/${user.handle}`,
      });
      const inbox = `${kiln.url}/federation/users/${user.handle}/inbox`;
      expect((await blocked.send(inbox, follow(blocked))).status).toBe(403);
      expect((await allowed.send(inbox, follow(allowed))).status).toBe(202);
      const followers = (await (
        await fetch(`${kiln.url}/federation/users/${user.handle}/followers?page=1`)
      ).json()) as { orderedItems: string[] };
      expect(followers.orderedItems).toEqual([allowed.id]);
      // A follower from before the block (stored directly) is not delivered to either.
      await kiln.app.services.federation?.followers.add(`user:${user.id}`, {
        follower: blocked.id,
        inbox: blocked.inbox,
        sharedInbox: null,
        host: new URL(blocked.id).host,
      });
      const created = await fetch(`${kiln.url}/api/v1/user/repos`, {
        method: 'POST',
        headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'announced' }),
      });
      expect(created.status).toBe(201);
      const announced = (actor: FediverseActor) =>
        actor.received.some((r) => r.activity.type === 'Create');
      expect(await eventually(async () => announced(allowed))).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(blocked.received).toEqual([]);
      expect(blocked.signatureKinds).toEqual([]);
    } finally {
      await kiln.close();
      await Promise.all([blocked.stop(), allowed.stop()]);
    }
  });
});
