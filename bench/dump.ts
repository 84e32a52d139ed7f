/**
 * Dump figure: `kiln dump` of an instance with 100 repositories of 10 MB each and 100,000
 * database rows, against `tar -cf` of the same data directory followed by `sync` of its archive
 * (kiln dump syncs its archive before renaming it into place, and a backup that is not on disk
 * is not one; `sync FILE` does the same for tar's). Kiln starts with the `kiln` launcher's node
 * flags and preload, as users start it. Target: Kiln's throughput ≥ 0.5× tar's. Both read the
 * same bytes from a warm page cache and write to the same disk, so the ratio shows what Kiln
 * adds: starting the command, the database snapshot as JSON and the refs read before any object
 * is copied.
 *
 *   node bench/dump.ts [--repos 100] [--megabytes 10] [--rows 100000] [--rounds 3]
 *
 * One repository is pushed through Kiln with incompressible content, then its directory is
 * copied for the others; the rows are sessions of one user. The two commands alternate and the
 * medians are compared. Everything lives in a temp directory removed at the end.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { MAIN } from '../test/support/cli.ts';
import { GitClient, noise, repoUrl } from '../test/support/git.ts';
import { startTestServer } from '../test/support/server.ts';
import { giveUpAfter } from './_give-up.ts';
import { seedBenchPerson } from './_seed.ts';
import { startEnv, startFlags } from './_start-flags.ts';
import { median } from './_stats.ts';

const { values: args } = parseArgs({
  options: {
    repos: { type: 'string', default: '100' },
    megabytes: { type: 'string', default: '10' },
    rows: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '3' },
  },
});
const REPOS = Number(args.repos);
const MEGABYTES = Number(args.megabytes);
const ROWS = Number(args.rows);
const ROUNDS = Number(args.rounds);
const run = promisify(execFile);
giveUpAfter('dump', 10);

async function seconds(work: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

const server = await startTestServer();
const scratch = await mkdtemp(join(tmpdir(), 'kiln-bench-dump-'));
const git = await GitClient.create();
try {
  const dataDir = join(server.dataDir, 'data');
  const { user, token } = await seedBenchPerson(server.app.services);
  const created = await fetch(`${server.url}/api/v1/user/repos`, {
    method: 'POST',
    headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'r0' }),
  });
  if (created.status !== 201) throw new Error(`create: ${created.status}`);
  const work = await git.init();
  const files: Record<string, Buffer> = {};
  for (let i = 0; i < MEGABYTES; i++) files[`blob-${i}.bin`] = noise(1024 * 1024);
  await git.commit(work, files, 'content');
  await git.ok(
    ['push', '-q', repoUrl(server.url, 'bench', 'r0', { token, as: 'username' }), 'main'],
    {
      cwd: work,
    },
  );
  const repoRoot = join(dataDir, 'repositories', 'bench');
  for (let i = 1; i < REPOS; i++)
    await cp(join(repoRoot, 'r0.git'), join(repoRoot, `r${i}.git`), { recursive: true });
  const now = Date.now();
  for (let i = 0; i < ROWS; i += 500) {
    const batch = Array.from({ length: Math.min(500, ROWS - i) }, (_, j) => ({
      id: `bench-session-${i + j}`,
      user_id: user.id,
      token_hash: `bench-hash-${i + j}`,
      created_at: now,
      expires_at: now + 86_400_000,
      last_seen_at: now,
    }));
    await server.app.database.db.insertInto('sessions').values(batch).execute();
  }
  const env = {
    ...process.env,
    ...startEnv(),
    SERVICE_DATA_DIR: dataDir,
    SERVICE_LOG_LEVEL: 'silent',
  };
  const kiln: number[] = [];
  const tar: number[] = [];
  let size = 0;
  for (let round = 0; round < ROUNDS + 1; round++) {
    const dumpFile = join(scratch, `kiln-${round}.tar`);
    const tarFile = join(scratch, `tar-${round}.tar`);
    // Neither side writes back what the other left in the page cache.
    await run('sync');
    const k = await seconds(() =>
      run(process.execPath, [...startFlags(), MAIN, 'dump', '--output', dumpFile], { env }),
    );
    await run('sync');
    const t = await seconds(async () => {
      await run('tar', ['-cf', tarFile, '-C', dataDir, '.']);
      await run('sync', [tarFile]);
    });
    size = (await stat(tarFile)).size;
    await rm(dumpFile);
    await rm(tarFile);
    // The first round warms the page cache for both and is not counted.
    if (round === 0) continue;
    kiln.push(k);
    tar.push(t);
    process.stdout.write(`round ${round}: kiln dump ${k.toFixed(2)} s, tar ${t.toFixed(2)} s\n`);
  }
  const ratio = median(tar) / median(kiln);
  process.stdout.write(
    `${REPOS} repositories of ${MEGABYTES} MB and ${ROWS} rows (${(size / 1e6).toFixed(0)} MB): kiln dump ${median(kiln).toFixed(2)} s (${(size / 1e6 / median(kiln)).toFixed(0)} MB/s), tar ${median(tar).toFixed(2)} s (${(size / 1e6 / median(tar)).toFixed(0)} MB/s)\n`,
  );
  process.stdout.write(
    `${JSON.stringify({
      figures: [
        {
          name: `kiln dump throughput ÷ tar's (${REPOS} × ${MEGABYTES} MB repositories, ${ROWS} rows)`,
          target: '≥ 0.5',
          measured: Number(ratio.toFixed(2)),
          unit: '×',
          pass: ratio >= 0.5,
        },
      ],
    })}\n`,
  );
} finally {
  await server.close();
  await git.dispose();
  await rm(scratch, { recursive: true, force: true });
}
