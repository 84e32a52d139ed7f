/**
 * Proposing a pull request across two servers: two real `kiln serve` processes on 127.0.0.1
 * started as `npm start` starts Kiln (federation on, a base URL each). A's person forks B's
 * repository, and each round pushes a new one-commit branch to the fork and proposes it
 * (`POST …/federation/pulls`), timed until the pull request exists on B (its API answers it).
 * The baseline, the same round: a pull request opened on B from a branch of B itself, plus one
 * `git fetch` of the proposed branch from the fork (what B does on top). Medians compared,
 * target ≤ 3×.
 *
 *   node bench/federated-pull.ts [--rounds 9]
 *
 * Stops by itself; everything lives in a temporary directory that is removed at the end.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchGit, seededServer } from './_federated-servers.ts';
import { seedBenchPerson } from './_seed.ts';
import { median } from './_stats.ts';

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '9' } } });
const ROUNDS = Number(args.rounds);
const TARGET = 3;

const root = mkdtempSync(join(tmpdir(), 'kiln-bench-fedpull-'));
const children = new Set<ChildProcess>();

type Instance = { url: string; token: string; handle: string };

/** A data dir with one person (and, on the upstream, a repository), then `kiln serve` on it. */
async function instance(name: string, handle: string, withRepo: boolean): Promise<Instance> {
  const { url, seeded } = await seededServer({ root, children }, name, {}, async (app) => {
    const { user, token } = await seedBenchPerson(app.services, { handle });
    if (withRepo) await app.services.repos.create(user, { name: 'tool', autoInit: true });
    return token;
  });
  return { url, token: seeded, handle };
}

async function api(kiln: Instance, method: string, path: string, body?: object) {
  const response = await fetch(`${kiln.url}/api/v1${path}`, {
    method,
    headers: { authorization: `token ${kiln.token}`, 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await response.json().catch(() => null)) as Record<string, unknown> | null;
  return { status: response.status, json };
}

const git = (cwd: string, ...argv: string[]) => benchGit(root, cwd, ...argv);

const remote = (kiln: Instance, repo: string) =>
  `${kiln.url.replace('http://', `http://${kiln.token}:@`)}/${kiln.handle}/${repo}.git`;

async function main(): Promise<void> {
  const a = await instance('a', 'bob', false);
  const b = await instance('b', 'ada', true);
  const forked = await api(a, 'POST', '/user/federation/forks', {
    actor: `${b.url}/repos/${b.handle}/tool`,
  });
  if (forked.status !== 201) throw new Error(`fork: ${forked.status}`);
  const work = join(root, 'work');
  await git(root, 'clone', '-q', remote(a, 'tool'), work);
  await git(work, 'config', 'user.name', 'Bench');
  await git(work, 'config', 'user.email', 'bench@example.test');
  await git(work, 'remote', 'add', 'upstream', remote(b, 'tool'));
  const scratch = join(root, 'scratch.git');
  await git(root, 'init', '-q', '--bare', scratch);
  const federated: number[] = [];
  const local: number[] = [];
  let number = 0;
  for (let round = 0; round <= ROUNDS; round++) {
    await git(work, 'checkout', '-q', '-B', `p${round}`, 'origin/main');
    writeFileSync(join(work, `p${round}.txt`), `${round}\n`);
    await git(work, 'add', '-A');
    await git(work, 'commit', '-q', '-m', `change ${round}`);
    await git(work, 'push', '-q', 'origin', `HEAD:refs/heads/p${round}`);
    await git(work, 'push', '-q', 'upstream', `HEAD:refs/heads/l${round}`);
    // Baseline: a local pull on B, then one fetch of the fork's branch.
    let started = performance.now();
    const opened = await api(b, 'POST', `/repos/${b.handle}/tool/pulls`, {
      head: `l${round}`,
      base: 'main',
      title: `local ${round}`,
    });
    if (opened.status !== 201) throw new Error(`local pull: ${opened.status}`);
    await git(scratch, 'fetch', '-q', remote(a, 'tool'), `+refs/heads/p${round}:refs/heads/x`);
    const baseline = performance.now() - started;
    number++;
    // Federated: the proposal on A until the pull exists on B.
    started = performance.now();
    const proposed = await api(a, 'POST', `/repos/${a.handle}/tool/federation/pulls`, {
      head: `p${round}`,
      base: 'main',
      title: `proposed ${round}`,
    });
    if (proposed.status !== 202) throw new Error(`proposal: ${proposed.status}`);
    number++;
    const deadline = Date.now() + 30_000;
    while ((await api(b, 'GET', `/repos/${b.handle}/tool/pulls/${number}`)).status !== 200) {
      if (Date.now() > deadline) throw new Error(`pull ${number} never opened on B`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const across = performance.now() - started;
    // The first round warms both servers up and is not counted.
    if (round > 0) {
      local.push(baseline);
      federated.push(across);
    }
  }
  const ratio = median(federated) / median(local);
  console.log(
    `federated proposal ${median(federated).toFixed(1)} ms, local pull + fetch ${median(local).toFixed(1)} ms (medians of ${ROUNDS})`,
  );
  console.log(
    JSON.stringify({
      figures: [
        {
          name: 'proposing a pull request across two servers ÷ (local pull + git fetch)',
          target: `≤ ${TARGET}`,
          measured: Number(ratio.toFixed(2)),
          unit: '×',
          pass: ratio <= TARGET,
        },
      ],
    }),
  );
}

try {
  await main();
} finally {
  for (const child of children) child.kill('SIGTERM');
  rmSync(root, { recursive: true, force: true });
}
