/**
 * `kiln dump` and housekeeping never work on one repository at once: repacking deletes packs
 * once it has written their replacements, which a copy running beside it could miss. A dump
 * waits while the repository's lease is held, and holds it itself while it copies, so the
 * dumped repository is whole.
 */
import { describe, expect, it } from 'vitest';
import { writeDump } from '../../src/domain/backup/dump.service.ts';
import { HousekeepingStore } from '../../src/domain/repos/housekeeping.store.ts';
import type { TarSink } from '../../src/lib/tar-writer.ts';
import { makeRepo } from '../git/fixtures.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';

let kiln: TestServer;
let git: GitClient;
useWorld({}, (world) => {
  ({ kiln, git } = world);
});

describe('kiln dump beside housekeeping', () => {
  it('waits for a repository under maintenance, and holds it while copying', async () => {
    const { user, token } = await kiln.make.userWithToken();
    const repo = await makeRepo(kiln, user, { name: 'busy' });
    const work = await git.init();
    await git.commit(work, { 'a.txt': 'a\n' });
    const url = repoUrl(kiln.url, repo.owner, repo.name, { token, as: 'password' });
    await git.ok(['push', '-q', url, 'main'], { cwd: work });

    const key = `${repo.owner}/${repo.name}`.toLowerCase();
    const leases = new HousekeepingStore(kiln.app.database.db);
    expect(await leases.claim(key, 'maintenance', Date.now(), 60_000)).toBeDefined();

    const chunks: Buffer[] = [];
    const sink: TarSink = { copiesAtOnce: false, write: (chunk) => void chunks.push(chunk) };
    const sources = {
      database: kiln.app.database,
      leases,
      dataDir: kiln.app.dataDir,
      repositoriesRoot: kiln.app.git.paths.root,
      kilnVersion: 'test',
    };
    let done = false;
    const dump = writeDump(sources, sink).finally(() => {
      done = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(done).toBe(false);
    // While the dump waits, the repository is still the maintenance's alone.
    expect(await leases.claim(key, 'another', Date.now(), 60_000)).toBeUndefined();

    await leases.release(key, 'maintenance', undefined);
    const summary = await dump;
    expect(summary.repositories).toBe(1);
    // The dump gave the lease back: housekeeping may run again.
    expect(await leases.claim(key, 'maintenance', Date.now(), 60_000)).toBeDefined();
  });
});
