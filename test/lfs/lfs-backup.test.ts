/**
 * LFS objects in the life of an instance: `kiln dump` carries them and `kiln restore` brings
 * them back (a clone smudges them from the restored instance), `kiln doctor` finds an object
 * whose bytes changed, and housekeeping removes the objects no repository reaches any more.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { LfsService } from '../../src/domain/lfs/lfs.service.ts';
import { LfsObjectStore } from '../../src/domain/lfs/lfs-object.store.ts';
import { LfsObjectFiles } from '../../src/storage/lfs-object-files.ts';
import { runCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { type GitClient, noise, repoUrl } from '../support/git.ts';
import { envFor, serveRestored } from '../support/restored.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';
import { filesUnder, installLfs, lfsWorkTree, oidOf } from './lfs-client.ts';

const content = noise(300_000);
let kiln: TestServer;
let git: GitClient;
let owner: Person;
const scratch = mkdtempSync(path.join(tmpdir(), 'kiln-lfs-backup-'));
const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
  rmSync(scratch, { recursive: true, force: true });
});

const urlOf = (base: string, name: string) =>
  repoUrl(base, owner.user.handle, name, { token: owner.token, as: 'password' });

useWorld(
  {
    people: ['owner'],
    repos: [
      { owner: 'owner', name: 'vault', private: true },
      { owner: 'owner', name: 'scratchpad' },
    ],
  },
  async (world) => {
    ({ kiln, git } = world);
    owner = world.people.owner;
    await installLfs(git);
    const dir = await lfsWorkTree(git, urlOf(kiln.url, 'vault'));
    await git.commit(dir, { 'vault.bin': content });
    await git.ok(['push', '-q', 'origin', 'main'], { cwd: dir });
  },
);

describe('dump, restore and doctor', () => {
  it('carry LFS objects to a new instance, where clones smudge them', async () => {
    const dumpFile = path.join(scratch, 'dump.tar');
    const source = envFor(kiln.app.dataDir, kiln.app.config.databaseUrl);
    const dumped = await runCli(['dump', '-o', dumpFile], source);
    expect(dumped.code, dumped.stderr).toBe(0);

    const database = await createTestDatabase();
    databases.push(database);
    const dataDir = path.join(scratch, 'restored');
    const restored = await runCli(['restore', '-i', dumpFile], envFor(dataDir, database.url));
    expect(restored.code, restored.stderr).toBe(0);
    const doctor = await runCli(['doctor', '--lfs-hash', 'all'], envFor(dataDir, database.url));
    expect(doctor.code, doctor.stdout).toBe(0);

    const served = await serveRestored(dataDir, database.url);
    try {
      const clone = await git.clone(urlOf(served.url, 'vault'));
      expect((await readFile(path.join(clone, 'vault.bin'))).equals(content)).toBe(true);
    } finally {
      await served.close();
    }

    // An object whose bytes changed on disk is what the doctor is for.
    const oid = oidOf(content);
    const file = path.join(dataDir, 'lfs', oid.slice(0, 2), oid.slice(2, 4), oid);
    writeFileSync(file, noise(content.length));
    const found = await runCli(['doctor', '--lfs-hash', 'all'], envFor(dataDir, database.url));
    expect(found.code).toBe(1);
    expect(found.stdout).toContain(`LFS object ${oid} does not hash to its id`);
    const refused = await runCli(['doctor', '--lfs-hash', 'some'], envFor(dataDir, database.url));
    expect(refused.code).not.toBe(0);
  });
});

describe('housekeeping', () => {
  it('removes the objects of a deleted repository and keeps those still reached', async () => {
    const only = noise(5000);
    const dir = await lfsWorkTree(git, urlOf(kiln.url, 'scratchpad'));
    await git.commit(dir, { 'only.bin': only, 'shared.bin': content });
    await git.ok(['push', '-q', 'origin', 'main'], { cwd: dir });
    const root = path.join(kiln.app.dataDir, 'lfs');
    const stored = (oid: string) => path.join(oid.slice(0, 2), oid.slice(2, 4), oid);
    expect(await filesUnder(root)).toContain(stored(oidOf(only)));

    await kiln.app.services.repos.delete(owner.user, owner.user.handle, 'scratchpad');
    // The sweep of a later hour: an orphan is left alone while an upload may still link it.
    const later = new LfsService({
      store: new LfsObjectStore(kiln.app.database.db),
      bytes: new LfsObjectFiles(root),
      maxFileSize: 0,
      now: () => Date.now() + 2 * 60 * 60_000,
    });
    expect(await kiln.app.services.lfs.removeOrphans()).toBe(0);
    expect(await later.removeOrphans()).toBe(1);
    const left = await filesUnder(root);
    expect(left).not.toContain(stored(oidOf(only)));
    expect(left).toContain(stored(oidOf(content)));
  });

  it('keeps the bytes of an orphan that is uploaded again while the sweep removes it', async () => {
    const { services, database } = kiln.app;
    const bytes = noise(4000);
    const oid = oidOf(bytes);
    const { repo: first } = await services.repos.create(owner.user, { name: 'first-home' });
    await services.lfs.upload(first, oid, Readable.from([bytes]), bytes.length);
    await services.repos.delete(owner.user, owner.user.handle, 'first-home');
    const { repo: second } = await services.repos.create(owner.user, { name: 'second-home' });
    // The upload lands between the sweep's decision that the object is an orphan and the
    // removal of its bytes: the bytes the upload stored must survive the sweep.
    class RacedStore extends LfsObjectStore {
      override async forgetOrphan(orphan: string, before: number): Promise<boolean> {
        const forgotten = await super.forgetOrphan(orphan, before);
        if (orphan === oid)
          await services.lfs.upload(second, oid, Readable.from([bytes]), bytes.length);
        return forgotten;
      }
    }
    const sweep = new LfsService({
      store: new RacedStore(database.db, database.dialect),
      bytes: new LfsObjectFiles(path.join(kiln.app.dataDir, 'lfs')),
      maxFileSize: 0,
      now: () => Date.now() + 2 * 60 * 60_000,
    });
    await sweep.removeOrphans();
    const { stream } = await services.lfs.open(second, oid);
    const read: Buffer[] = [];
    for await (const chunk of stream) read.push(chunk as Buffer);
    expect(Buffer.concat(read).equals(bytes)).toBe(true);
  });
});

describe('doctor', () => {
  // Last: the row it leaves would be one more orphan for the sweeps above.
  it('does not count an upload still under way as a missing object', async () => {
    const { database, services } = kiln.app;
    const before = await services.lfs.check(1);
    // What an upload records just before its bytes land (or a process that died right then
    // leaves for the sweep): no repository reaches it yet.
    const store = new LfsObjectStore(database.db, database.dialect);
    await store.recordStored(oidOf(Buffer.from('still arriving')), 14, Date.now());
    const after = await services.lfs.check(1);
    expect(after.problems).toEqual(before.problems);
  });
});
