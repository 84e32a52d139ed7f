/**
 * Federation figures, against real `kiln serve` processes on 127.0.0.1 started as `npm start`
 * starts Kiln (federation on, a base URL of their own):
 *
 * 1. `GET /{user}` as an ActivityPub actor and `GET /.well-known/webfinger` against
 *    `GET /api/v1/version` on the same server (target ≥ 0.5× each), 16 connections.
 * 2. A push to a repository with 1,000 remote followers on 10 inboxes against the same push to a
 *    server with federation off (target ≤ 1.1×), medians of alternating pushes. The followers'
 *    inboxes are a sink in this process that answers 202.
 *
 *   node bench/federation.ts [--seconds 2] [--rounds 3] [--pushes 15]
 *
 * Stops by itself; everything lives in a temporary directory that is removed at the end.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { App } from '../src/app.ts';
import { benchGit, seededServer } from './_federated-servers.ts';
import { seedBenchPerson } from './_seed.ts';
import { median } from './_stats.ts';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3' },
    pushes: { type: 'string', default: '15' },
  },
});
const SECONDS = Number(args.seconds);
const ROUNDS = Number(args.rounds);
const PUSHES = Number(args.pushes);
const FOLLOWERS = 1000;
const INBOXES = 10;
const SETTLE_MS = 400;

type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  headers?: Record<string, string>;
}) => Promise<{ requests: { average: number }; errors: number; non2xx: number }>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const root = mkdtempSync(join(tmpdir(), 'kiln-bench-fed-'));
const children = new Set<ChildProcess>();

type Instance = { url: string; token: string; handle: string; child: ChildProcess };

/** A data dir with one user, a token and a repository, then a `kiln serve` on it. */
async function instance(name: string, federation: boolean, inboxes: string[]): Promise<Instance> {
  const { url, child, seeded } = await seededServer(
    { root, children },
    name,
    { env: { SERVICE_FEDERATION_ENABLED: String(federation) } },
    async (app) => {
      const { user, token } = await seedBenchPerson(app.services, {
        handle: 'ada',
        fullName: 'Ada',
      });
      const { repo } = await app.services.repos.create(user, { name: 'tool', autoInit: true });
      if (inboxes.length > 0) await seedFollowers(app, repo.id, inboxes);
      return { token, handle: user.handle };
    },
  );
  return { url, child, ...seeded };
}

/** The repository's remote followers, spread over `inboxes`, written straight to the table. */
async function seedFollowers(app: App, repoId: string, inboxes: string[]): Promise<void> {
  const rows = Array.from({ length: FOLLOWERS }, (_, n) => ({
    actor: `repo:${repoId}`,
    follower: `${inboxes[n % inboxes.length]}/actor/${n}`,
    inbox: `${inboxes[n % inboxes.length]}/inbox`,
    shared_inbox: null,
    host: new URL(inboxes[n % inboxes.length] ?? 'http://127.0.0.1').host,
    created_at: Date.now(),
  }));
  const db = app.database.db.withTables<{ federation_followers: (typeof rows)[number] }>();
  for (let at = 0; at < rows.length; at += 200) {
    await db
      .insertInto('federation_followers')
      .values(rows.slice(at, at + 200))
      .execute();
  }
}

async function rate(url: string, headers: Record<string, string> = {}): Promise<number> {
  const result = await autocannon({ url, connections: 16, duration: SECONDS, headers });
  if (result.errors + result.non2xx > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx answers`);
  return result.requests.average;
}

async function discovery(kiln: Instance) {
  const host = new URL(kiln.url).host;
  const sides = {
    version: () => rate(`${kiln.url}/api/v1/version`),
    actor: () => rate(`${kiln.url}/${kiln.handle}`, { accept: 'application/activity+json' }),
    webfinger: () => rate(`${kiln.url}/.well-known/webfinger?resource=acct:${kiln.handle}@${host}`),
  };
  const seen: Record<keyof typeof sides, number[]> = { version: [], actor: [], webfinger: [] };
  await sides.actor(); // warm-up: makes the actor's keys
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of Object.keys(sides) as (keyof typeof sides)[])
      seen[side].push(await sides[side]());
  }
  return {
    version: median(seen.version),
    actor: median(seen.actor),
    webfinger: median(seen.webfinger),
  };
}

const git = (cwd: string, ...argv: string[]) => benchGit(root, cwd, ...argv);

async function pushes(on: Instance, off: Instance) {
  const work = async (kiln: Instance, name: string) => {
    const dir = join(root, name);
    const remote = `${kiln.url.replace('http://', `http://${kiln.token}:@`)}/${kiln.handle}/tool.git`;
    await git(root, 'clone', '-q', remote, dir);
    await git(dir, 'config', 'user.name', 'Bench');
    await git(dir, 'config', 'user.email', 'bench@example.test');
    return dir;
  };
  const dirs = { on: await work(on, 'work-on'), off: await work(off, 'work-off') };
  const times: { on: number[]; off: number[] } = { on: [], off: [] };
  for (let n = 0; n <= PUSHES; n++) {
    for (const side of n % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
      const dir = dirs[side];
      writeFileSync(join(dir, `f${n}.txt`), `${n}\n`);
      await git(dir, 'add', '-A');
      await git(dir, 'commit', '-q', '-m', `change ${n}`);
      const started = performance.now();
      await git(dir, 'push', '-q', 'origin', 'HEAD');
      // The first push of each side warms its server up and is not counted.
      if (n > 0) times[side].push(performance.now() - started);
      // What a push sets off (the activities, 20 signed deliveries) runs after its answer; it is
      // let finish so that it does not land in the next push measured, of either side.
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    }
  }
  return { on: median(times.on), off: median(times.off) };
}

async function main(): Promise<void> {
  const sink = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(202);
      res.end();
    });
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  const inboxes = Array.from({ length: INBOXES }, (_, n) => `${sinkUrl}/server${n}`);
  try {
    const on = await instance('on', true, inboxes);
    const found = await discovery(on);
    const off = await instance('off', false, []);
    const pushed = await pushes(on, off);
    const actorRatio = found.actor / found.version;
    const webfingerRatio = found.webfinger / found.version;
    const pushRatio = pushed.on / pushed.off;
    process.stdout.write(
      [
        `/api/v1/version ${found.version.toFixed(0)} req/s, actor ${found.actor.toFixed(0)} req/s (${actorRatio.toFixed(2)}), WebFinger ${found.webfinger.toFixed(0)} req/s (${webfingerRatio.toFixed(2)})`,
        `push with ${FOLLOWERS} followers on ${INBOXES} inboxes ${pushed.on.toFixed(0)} ms, federation off ${pushed.off.toFixed(0)} ms (${pushRatio.toFixed(2)})`,
        '',
      ].join('\n'),
    );
    const figures = [
      {
        name: 'actor GET ÷ `/api/v1/version`, requests per second',
        target: '≥ 0.5',
        measured: actorRatio,
        unit: '×',
        pass: actorRatio >= 0.5,
      },
      {
        name: 'WebFinger GET ÷ `/api/v1/version`, requests per second',
        target: '≥ 0.5',
        measured: webfingerRatio,
        unit: '×',
        pass: webfingerRatio >= 0.5,
      },
      {
        name: `push to a repository with ${FOLLOWERS} followers on ${INBOXES} inboxes ÷ federation off, medians`,
        target: '≤ 1.1',
        measured: pushRatio,
        unit: '×',
        pass: pushRatio <= 1.1,
      },
    ].map((figure) => ({ ...figure, measured: Number(figure.measured.toFixed(3)) }));
    process.stdout.write(`${JSON.stringify({ figures })}\n`);
  } finally {
    for (const child of children) child.kill('SIGKILL');
    sink.close();
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
