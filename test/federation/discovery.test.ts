import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../support/server.ts';
import { AP, startFederatedKiln } from './support.ts';

describe('federation discovery', () => {
  let kiln: TestServer;
  let handle: string;
  let token: string;

  beforeAll(async () => {
    kiln = await startFederatedKiln();
    const made = await kiln.make.userWithToken();
    handle = made.user.handle;
    token = made.token;
    for (const [name, isPrivate] of [
      ['open', false],
      ['secret', true],
    ] as const) {
      const created = await fetch(`${kiln.url}/api/v1/user/repos`, {
        method: 'POST',
        headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name, description: `the ${name} one`, private: isPrivate }),
      });
      expect(created.status).toBe(201);
    }
  });
  afterAll(async () => kiln?.close());

  it('WebFinger finds a user by acct: and by page URL', async () => {
    const host = new URL(kiln.url).host;
    for (const resource of [`acct:${handle}@${host}`, `${kiln.url}/${handle}`]) {
      const response = await fetch(
        `${kiln.url}/.well-known/webfinger?resource=${encodeURIComponent(resource)}`,
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('application/jrd+json');
      const jrd = (await response.json()) as {
        links: { rel: string; href: string; type?: string }[];
      };
      expect(jrd.links).toContainEqual({ rel: 'self', type: AP, href: `${kiln.url}/${handle}` });
      expect(jrd.links.find((l) => l.rel === 'http://webfinger.net/rel/profile-page')?.href).toBe(
        `${kiln.url}/${handle}`,
      );
    }
    const other = await fetch(
      `${kiln.url}/.well-known/webfinger?resource=${encodeURIComponent(`acct:${handle}@elsewhere.example`)}`,
    );
    expect(other.status).toBe(404);
    expect((await fetch(`${kiln.url}/.well-known/webfinger`)).status).toBe(400);
  });

  it('answers bad federation requests with a plain 4xx line, never a 500', async () => {
    const answers: [string, RequestInit, number, string][] = [
      [`/.well-known/webfinger?resource=`, {}, 400, 'resource is required'],
      [`/federation/users/${handle}/outbox?page=0`, {}, 400, 'page must be a positive integer'],
      [`/federation/users/${handle}/outbox?page=x`, {}, 400, 'page must be a positive integer'],
      [`/federation/users/nobody-here/outbox`, {}, 404, 'not found'],
      [`/federation/activities/nothing`, {}, 404, 'not found'],
      [
        `/federation/users/${handle}/inbox`,
        { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' },
        415,
        '',
      ],
    ];
    for (const [path, init, status, text] of answers) {
      const response = await fetch(`${kiln.url}${path}`, init);
      expect(response.status, path).toBe(status);
      expect(response.headers.get('content-type'), path).toContain('text/plain');
      if (text) expect(await response.text(), path).toBe(text);
    }
  });

  it('NodeInfo 2.1 names kiln and counts users', async () => {
    const index = (await (await fetch(`${kiln.url}/.well-known/nodeinfo`)).json()) as {
      links: { rel: string; href: string }[];
    };
    const link = index.links.find((l) => l.rel.endsWith('/schema/2.1'));
    expect(link).toBeDefined();
    const info = (await (await fetch(link?.href ?? '')).json()) as {
      version: string;
      software: { name: string; version: string };
      openRegistrations: boolean;
      usage: { users: { total: number }; localPosts: number };
    };
    expect(info.version).toBe('2.1');
    expect(info.software.name).toBe('kiln');
    expect(info.software.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(info.openRegistrations).toBe(true);
    expect(info.usage.users.total).toBe(1);
  });

  it('the user and repository URLs answer actors to ActivityPub clients and pages to browsers', async () => {
    const person = await fetch(`${kiln.url}/${handle}`, { headers: { accept: AP } });
    expect(person.status).toBe(200);
    expect(person.headers.get('content-type')).toContain('application/activity+json');
    const actor = (await person.json()) as Record<string, unknown> & {
      publicKey: { id: string; owner: string; publicKeyPem: string };
    };
    expect(actor.type).toBe('Person');
    expect(actor.id).toBe(`${kiln.url}/${handle}`);
    expect(actor.preferredUsername).toBe(handle);
    expect(actor.publicKey.owner).toBe(actor.id);
    expect(actor.publicKey.publicKeyPem).toContain('BEGIN PUBLIC KEY');

    const ld = 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"';
    const repo = await fetch(`${kiln.url}/repos/${handle}/open`, { headers: { accept: ld } });
    expect(repo.status).toBe(200);
    const repository = (await repo.json()) as Record<string, unknown>;
    expect(repository.type).toContain('Repository');
    expect(repository.name).toBe('open');
    expect(repository.summary).toBe('the open one');
    expect(repository.cloneUri).toBe(`${kiln.url}/${handle}/open.git`);
    expect(repository['@context']).toContain('https://forgefed.org/ns');
    for (const key of ['inbox', 'outbox', 'followers', 'publicKey'])
      expect(repository[key]).toBeDefined();

    const page = await fetch(`${kiln.url}/repos/${handle}/open`, {
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');

    const instance = (await (await fetch(`${kiln.url}/federation/actor`)).json()) as Record<
      string,
      unknown
    >;
    expect(instance.type).toBe('Application');
  });

  it('the pages tell people how to follow from the fediverse', async () => {
    const host = new URL(kiln.url).host;
    const profile = await (await fetch(`${kiln.url}/${handle}`)).text();
    expect(profile).toContain(`@${handle}@${host}`);
    const repo = await (await fetch(`${kiln.url}/repos/${handle}/open`)).text();
    expect(repo).toContain('Follow from the fediverse');
    expect(repo).toContain(`${kiln.url}/repos/${handle}/open`);
    expect(repo).toContain('0 stars and 0 followers from other servers');
  });

  it('a private repository does not exist for federation', async () => {
    const actor = await fetch(`${kiln.url}/repos/${handle}/secret`, { headers: { accept: AP } });
    expect(actor.status).toBe(404);
    for (const endpoint of ['outbox', 'followers']) {
      const response = await fetch(`${kiln.url}/federation/repos/${handle}/secret/${endpoint}`);
      expect(response.status).toBe(404);
    }
    const webfinger = await fetch(
      `${kiln.url}/.well-known/webfinger?resource=${encodeURIComponent(`${kiln.url}/repos/${handle}/secret`)}`,
    );
    expect(webfinger.status).toBe(404);
  });

  it('actor ids stay when the display name changes', async () => {
    const before = (await (
      await fetch(`${kiln.url}/${handle}`, { headers: { accept: AP } })
    ).json()) as {
      id: string;
      publicKey: { publicKeyPem: string };
    };
    const user = await kiln.app.services.users.getUser(handle);
    await kiln.app.services.users.updateProfile(user, { fullName: 'A New Name', description: '' });
    const after = (await (
      await fetch(`${kiln.url}/${handle}`, { headers: { accept: AP } })
    ).json()) as {
      id: string;
      name: string;
      publicKey: { publicKeyPem: string };
    };
    expect(after.name).toBe('A New Name');
    expect(after.id).toBe(before.id);
    expect(after.publicKey.publicKeyPem).toBe(before.publicKey.publicKeyPem);
  });
});

describe('federation switched off', () => {
  it('hides every federation route and ignores ActivityPub Accept headers', async () => {
    const kiln = await startFederatedKiln({ SERVICE_FEDERATION_ENABLED: 'false' });
    try {
      const { user } = await kiln.make.user();
      for (const path of [
        `/.well-known/webfinger?resource=acct:${user.handle}@${new URL(kiln.url).host}`,
        '/.well-known/nodeinfo',
        '/nodeinfo/2.1',
        '/federation/actor',
      ]) {
        expect((await fetch(`${kiln.url}${path}`)).status).toBe(404);
      }
      const page = await fetch(`${kiln.url}/${user.handle}`, { headers: { accept: AP } });
      expect(page.headers.get('content-type') ?? '').not.toContain('activity+json');
      const inbox = await fetch(`${kiln.url}/federation/inbox`, {
        method: 'POST',
        headers: { 'content-type': AP },
        body: '{}',
      });
      expect(inbox.status).toBe(404);
    } finally {
      await kiln.close();
    }
  });
});
