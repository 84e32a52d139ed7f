/**
 * A private organisation hides its repositories, public ones included, from everyone but its
 * members and the instance's administrators: REST lookups, lists and their counts, the
 * repository page, raw files, archives and clone over HTTP all answer an outsider (anonymous or
 * signed in) exactly as for a repository that does not exist, while a member and an admin see
 * them as before. A public organisation's public repository stays visible to everyone.
 */
import { describe, expect, it } from 'vitest';
import { GitClient, repoUrl } from '../support/git.ts';
import { auth, Browser, json } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { type Person, useForSuite } from '../support/world.ts';
import { signedIn } from '../web/fixtures.ts';

const ADMIN = 'porgadmin';
const READERS = ['anonymous', 'outsider', 'member', 'admin'] as const;
type Reader = (typeof READERS)[number];
const SEES_HIDDEN: Record<Reader, boolean> = {
  anonymous: false,
  outsider: false,
  member: true,
  admin: true,
};

type Suite = {
  kiln: TestServer;
  git: GitClient;
  people: Record<Exclude<Reader, 'anonymous'> | 'founder', Person>;
  browsers: Record<Reader, Browser>;
};
let suite: Suite;

useForSuite(
  async (): Promise<Suite> => {
    const kiln = await startTestServer({
      SERVICE_PROTECT_ENABLED: 'false',
      SERVICE_ADMIN_HANDLES: ADMIN,
    });
    const make = kiln.make;
    const people = {
      founder: await make.userWithToken(),
      outsider: await make.userWithToken(),
      member: await make.userWithToken(),
      admin: await make.userWithToken({ handle: ADMIN }),
    };
    const { orgs, repos } = kiln.app.services;
    const founder = people.founder.user;
    const hidden = await orgs.createOrg({
      name: 'hiddenco',
      owner: founder,
      visibility: 'private',
    });
    await orgs.addMember(hidden, people.member.user, 'member');
    await orgs.createOrg({ name: 'openco', owner: founder });
    for (const [orgName, name, isPrivate] of [
      ['hiddenco', 'shown', false],
      ['hiddenco', 'secret', true],
      ['openco', 'shown', false],
    ] as const) {
      await repos.create(founder, { name, orgName, private: isPrivate, autoInit: true });
    }
    const browsers = { anonymous: new Browser(kiln.url) } as Record<Reader, Browser>;
    for (const reader of ['outsider', 'member', 'admin'] as const) {
      const { user, password } = people[reader];
      browsers[reader] = await signedIn(kiln, user.handle, password);
    }
    return { kiln, git: await GitClient.create(), people, browsers };
  },
  async ({ kiln, git }) => {
    await git.dispose();
    await kiln.close();
  },
  (started) => {
    suite = started;
  },
  120_000,
);

const tokenOf = (reader: Reader) =>
  reader === 'anonymous' ? undefined : suite.people[reader].token;

async function api(reader: Reader, path: string) {
  const token = tokenOf(reader);
  return fetch(`${suite.kiln.url}/api/v1${path}`, { headers: token ? auth.token(token) : {} });
}

async function listed(reader: Reader, path: string) {
  const response = await api(reader, path);
  expect(response.status, `${path} as ${reader}`).toBe(200);
  const body = await json(response);
  const items: { full_name: string }[] = Array.isArray(body) ? body : body.data;
  return {
    names: items.map((item) => item.full_name),
    total: response.headers.get('x-total-count'),
  };
}

describe('repositories of a private organisation', () => {
  it('answer the REST lookup as a missing repository does, to outsiders only', async () => {
    const missing = await (await api('anonymous', '/repos/hiddenco/nothing-here')).json();
    for (const reader of READERS) {
      for (const name of ['shown', 'secret']) {
        const response = await api(reader, `/repos/hiddenco/${name}`);
        expect(response.status, `${name} as ${reader}`).toBe(SEES_HIDDEN[reader] ? 200 : 404);
        const body = await json(response);
        if (SEES_HIDDEN[reader]) expect(body.full_name).toBe(`hiddenco/${name}`);
        else expect(body.message).toBe(missing.message.replace('nothing-here', name));
      }
      expect((await api(reader, '/repos/openco/shown')).status, reader).toBe(200);
    }
  });

  it('are left out of lists and counts, and their organisation list is 404, for outsiders', async () => {
    for (const reader of READERS) {
      for (const path of [
        '/repos/search?limit=50',
        '/repos/search?q=shown&limit=50',
        '/repos?limit=50',
      ]) {
        const { names, total } = await listed(reader, path);
        const what = `${path} as ${reader}`;
        expect(names, what).toContain('openco/shown');
        expect(names.includes('hiddenco/shown'), what).toBe(SEES_HIDDEN[reader]);
        if (!path.includes('q='))
          expect(names.includes('hiddenco/secret'), what).toBe(SEES_HIDDEN[reader]);
        expect(Number(total), what).toBe(names.length);
      }
      for (const path of ['/orgs/hiddenco/repos', '/users/hiddenco/repos']) {
        const what = `${path} as ${reader}`;
        if (!SEES_HIDDEN[reader]) {
          expect((await api(reader, path)).status, what).toBe(404);
          continue;
        }
        const { names, total } = await listed(reader, path);
        expect(names.sort(), what).toEqual(['hiddenco/secret', 'hiddenco/shown']);
        expect(total, what).toBe('2');
      }
      const open = await listed(reader, '/orgs/openco/repos');
      expect(open.names, reader).toEqual(['openco/shown']);
    }
  });

  it('hide the repository page, raw files and archives from outsiders', async () => {
    const paths = [
      '/repos/hiddenco/shown',
      '/repos/hiddenco/shown/raw/main/README.md',
      '/repos/hiddenco/shown/archive/main.zip',
    ];
    for (const reader of READERS) {
      for (const path of paths) {
        const response = await suite.browsers[reader].get(path);
        expect(response.status, `${path} as ${reader}`).toBe(SEES_HIDDEN[reader] ? 200 : 404);
        await response.arrayBuffer();
        const open = await suite.browsers[reader].get(path.replace('hiddenco', 'openco'));
        expect(open.status, `openco ${path} as ${reader}`).toBe(200);
        await open.arrayBuffer();
      }
      const archive = await api(reader, '/repos/hiddenco/shown/archive/main.tar.gz');
      expect(archive.status, `archive as ${reader}`).toBe(SEES_HIDDEN[reader] ? 200 : 404);
      await archive.arrayBuffer();
    }
  });

  it('cannot be cloned over HTTP by outsiders, as a missing repository cannot', async () => {
    for (const reader of READERS) {
      const token = tokenOf(reader);
      const url = (name: string) =>
        repoUrl(suite.kiln.url, 'hiddenco', name, token ? { token, as: 'password' } : undefined);
      const listing = await suite.git.run(['ls-remote', url('shown')]);
      expect(listing.code === 0, `ls-remote as ${reader}`).toBe(SEES_HIDDEN[reader]);
      if (SEES_HIDDEN[reader]) expect(listing.stdout).toContain('refs/heads/main');
      const infoRefs = (name: string) =>
        fetch(`${suite.kiln.url}/hiddenco/${name}.git/info/refs?service=git-upload-pack`, {
          headers: token ? auth.basicPassword(token) : {},
        });
      const [refs, missing] = [await infoRefs('shown'), await infoRefs('nothing-here')];
      await Promise.all([refs.arrayBuffer(), missing.arrayBuffer()]);
      if (SEES_HIDDEN[reader]) expect(refs.status, reader).toBe(200);
      else expect(refs.status, reader).toBe(missing.status);
    }
  });
});
