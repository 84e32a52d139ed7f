/**
 * Clone time of a repository grown by many small pushes, with background housekeeping on,
 * against the same history after `git gc --aggressive`; and with housekeeping off, for contrast.
 *
 * 1. Two Kiln servers in this process on 127.0.0.1 (SQLite), one with the default housekeeping
 *    settings, one with `service.housekeeping.enabled=false`. Two clients push to them at the
 *    same time, each in a loop of `--pushes` real pushes over smart HTTP of one small commit
 *    (one file rewritten: a commit, a tree and a blob), so both repositories receive what a busy
 *    repository does: a few loose objects per push, or a pack when a push is large enough.
 * 2. Once the last push is in and housekeeping has gone idle, the history is pushed once more,
 *    whole, into a third repository on the second server and that one gets
 *    `git gc --aggressive --prune=now`: the best-packed form of the same objects.
 * 3. `git clone --bare` over HTTP of each of the three, alternating, `--rounds` times; the
 *    figures compare medians. Target: housekept ≤ 1.1 × aggressive.
 *
 *   node bench/housekeeping.ts [--pushes 2000] [--rounds 7]
 *
 * Prints the figures and ends with one JSON line (bench/run.ts's contract); exits non-zero when
 * the target is missed. A watchdog ends everything after 10 minutes; all data lives in
 * temporary directories removed at the end.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { User } from '../src/domain/users/user.types.ts';
import { eventually } from '../test/support/eventually.ts';
import { GitClient, repoUrl } from '../test/support/git.ts';
import { startTestServer, type TestServer } from '../test/support/server.ts';
import { median } from './_stats.ts';

const { values: args } = parseArgs({
  options: {
    pushes: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '7' },
  },
});
const PUSHES = Number(args.pushes);
const ROUNDS = Number(args.rounds);
const TARGET = 1.1;

const log = (line: string) => process.stderr.write(`housekeeping: ${line}\n`);
const watchdog = setTimeout(
  () => {
    log('watchdog: giving up after 10 minutes');
    process.exit(2);
  },
  10 * 60 * 1000,
);
watchdog.unref();

type Side = { kiln: TestServer; token: string; owner: User };

async function side(env: Record<string, string>): Promise<Side> {
  const kiln = await startTestServer({ SERVICE_PROTECT_ENABLED: 'false', ...env });
  const { user, token } = await kiln.make.userWithToken();
  return { kiln, token, owner: user };
}

async function createRepo(at: Side, name: string): Promise<string> {
  await at.kiln.app.services.repos.create(at.owner, { name, private: false, autoInit: false });
  return repoUrl(at.kiln.url, at.owner.handle, name, { token: at.token, as: 'password' });
}

/** One push as git sends it: the ref update and a thin pack of the commit's new objects. */
type Push = { readonly old: string; readonly next: string; readonly pack: Buffer };

/** Runs git with binary stdout. */
function gitBytes(args: string[], cwd: string, input: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = git.spawn(args, { cwd });
    const out: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`git ${args[0]} exited ${code}`)),
    );
    child.stdin.end(input);
  });
}

/**
 * `count` commits of one rewritten file, made at once with fast-import, and for each the pack
 * `git push` would send (`pack-objects --thin` of the commit against its parent): made before
 * the clock starts, so the loop below is the pushes alone.
 */
async function preparePushes(count: number): Promise<{ work: string; pushes: Push[] }> {
  const work = await git.init();
  await git.commitMany(work, count, 'push');
  const commits = (await git.ok(['rev-list', '--reverse', 'main'], { cwd: work })).split('\n');
  const pushes: Push[] = [];
  let old = '0'.repeat(40);
  for (const next of commits) {
    const revs = old.startsWith('0000') ? `${next}\n` : `${next}\n^${old}\n`;
    const pack = await gitBytes(['pack-objects', '--revs', '--thin', '--stdout', '-q'], work, revs);
    pushes.push({ old, next, pack });
    old = next;
  }
  return { work, pushes };
}

/** A pkt-line: four hex digits of length, then the payload. */
const pktLine = (payload: string) =>
  `${(Buffer.byteLength(payload) + 4).toString(16).padStart(4, '0')}${payload}`;

/**
 * Sends every push in order to the repository's receive-pack over smart HTTP, exactly the
 * request git's HTTP client makes (the advertisement it fetches first is skipped: the old value
 * is known), and checks git's report for each.
 */
async function pushLoop(at: Side, url: string, pushes: readonly Push[]): Promise<void> {
  const { origin, pathname } = new URL(url);
  const endpoint = `${origin}${pathname}/git-receive-pack`;
  const authorization = `Basic ${Buffer.from(`${at.owner.handle}:${at.token}`).toString('base64')}`;
  const started = performance.now();
  for (const [i, push] of pushes.entries()) {
    const command = pktLine(`${push.old} ${push.next} refs/heads/main\0report-status\n`);
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/x-git-receive-pack-request' },
      body: Buffer.concat([Buffer.from(`${command}0000`), push.pack]),
    });
    const report = await response.text();
    if (!report.includes('ok refs/heads/main')) {
      throw new Error(`push ${i} refused (${response.status}): ${report.slice(0, 200)}`);
    }
    if ((i + 1) % 500 === 0) {
      log(
        `${i + 1} pushes to :${new URL(url).port} in ${((performance.now() - started) / 1000).toFixed(0)} s`,
      );
    }
  }
}

const git = await GitClient.create();
const on = await side({});
const off = await side({ SERVICE_HOUSEKEEPING_ENABLED: 'false' });
try {
  const urls = { on: await createRepo(on, 'grown'), off: await createRepo(off, 'grown') };

  const { work, pushes } = await preparePushes(PUSHES);
  await Promise.all([pushLoop(on, urls.on, pushes), pushLoop(off, urls.off, pushes)]);
  const idle = async () => {
    const stats = on.kiln.app.services.housekeeping.stats();
    return stats.running === 0 && stats.queued === 0;
  };
  await eventually(idle, 120_000);
  const stats = on.kiln.app.services.housekeeping.stats();
  log(
    `housekeeping runs: ${JSON.stringify(stats.runs)}, ${stats.durationSecondsTotal.toFixed(1)} s in all`,
  );

  const urlAggressive = await createRepo(off, 'aggressive');
  await git.ok(['push', '-q', urlAggressive, 'main'], { cwd: work });
  const dirOf = (at: Side, name: string) =>
    path.join(at.kiln.app.dataDir, 'repositories', at.owner.handle.toLowerCase(), `${name}.git`);
  await git.ok(['--git-dir', dirOf(off, 'aggressive'), 'gc', '-q', '--aggressive', '--prune=now']);

  const layout = (dir: string) => {
    const files = readdirSync(path.join(dir, 'objects', 'pack'));
    const loose = readdirSync(path.join(dir, 'objects')).filter((d) => /^[0-9a-f]{2}$/.test(d));
    return `${files.filter((f) => f.endsWith('.pack')).length} packs, ${loose.length} loose fan-out dirs`;
  };
  log(
    `housekept: ${layout(dirOf(on, 'grown'))}; off: ${layout(dirOf(off, 'grown'))}; aggressive: ${layout(dirOf(off, 'aggressive'))}`,
  );

  const sides = { housekept: urls.on, off: urls.off, aggressive: urlAggressive } as const;
  const times: Record<keyof typeof sides, number[]> = { housekept: [], off: [], aggressive: [] };
  const names = Object.keys(sides) as (keyof typeof sides)[];
  for (let round = 0; round < ROUNDS + 1; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length] as keyof typeof sides;
      const target = path.join(await git.tempDir('clone-'), 'repo.git');
      const started = performance.now();
      await git.ok(['clone', '-q', '--bare', sides[name], target]);
      const ms = performance.now() - started;
      if (round > 0) times[name].push(ms); // the first round warms caches and is not counted
    }
  }
  const ms = Object.fromEntries(names.map((name) => [name, median(times[name])])) as Record<
    keyof typeof sides,
    number
  >;
  const ratio = ms.housekept / ms.aggressive;
  const contrast = ms.off / ms.aggressive;
  log(
    `clone medians: housekept ${ms.housekept.toFixed(1)} ms, off ${ms.off.toFixed(1)} ms, gc --aggressive ${ms.aggressive.toFixed(1)} ms`,
  );
  log(`housekept ÷ aggressive ${ratio.toFixed(3)}, off ÷ aggressive ${contrast.toFixed(3)}`);
  console.log(
    JSON.stringify({
      figures: [
        {
          name: `Clone after ${PUSHES} pushes, housekeeping on ÷ after git gc --aggressive (median of ${ROUNDS})`,
          target: `≤ ${TARGET}`,
          measured: Number(ratio.toFixed(3)),
          unit: 'ratio',
          pass: ratio <= TARGET,
        },
        {
          name: `Clone after ${PUSHES} pushes, housekeeping off ÷ after git gc --aggressive (contrast)`,
          target: 'shown',
          measured: Number(contrast.toFixed(3)),
          unit: 'ratio',
          pass: true,
        },
      ],
    }),
  );
  if (ratio > TARGET) process.exitCode = 1;
} finally {
  await Promise.all([on.kiln.close(), off.kiln.close()]);
  await git.dispose();
}
