import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitClient } from '../support/git.ts';
import type { Json } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import {
  findSystemRuntime,
  installRenovate,
  npmRegistry,
  RENOVATE_VERSION,
  type RenovateRun,
  type Runtime,
  runRenovate,
} from './renovate-runner.ts';
import { type Seeded, World } from './renovate-world.ts';

/**
 * Renovate 39 drives Kiln with its stock `gitea` platform driver, end to end: the REST API for
 * the repository and its pull requests, smart HTTP for clone and push, and Kiln's own API and
 * git to check what Renovate did. Package lookups go to the npm registry the npm client uses.
 */

/** Pinned and outdated within their major: one pull apiece. */
const OUTDATED = { lodash: '4.17.15', ms: '2.0.0', debug: '4.1.0' } as const;
const MANIFEST = `${JSON.stringify(
  { name: 'renovate-demo', version: '1.0.0', private: true, dependencies: OUTDATED },
  null,
  2,
)}\n`;
/**
 * npm:unpublishSafe waits 3 days per release and reports that as a commit status, and a label
 * makes Renovate read the label list, so the statuses and labels routes take part. A repository
 * config wins over the global one, so config:recommended's hourly limit is lifted here. Majors
 * are off: a future major release of a fixture package would add a second pull for it.
 */
const REPO_CONFIG = `${JSON.stringify(
  {
    extends: ['config:recommended', 'npm:unpublishSafe'],
    labels: ['dependencies'],
    prHourlyLimit: 0,
    prConcurrentLimit: 0,
    packageRules: [{ matchUpdateTypes: ['major'], enabled: false }],
  },
  null,
  2,
)}\n`;

const runtime = findSystemRuntime();
const missing = 'missing' in runtime ? runtime.missing : undefined;
if (missing) console.warn(`Renovate end-to-end suite skipped: ${missing}`);

/** Fails with the log tail unless the run exited 0 and logged no error or host failure. */
function expectClean(run: RenovateRun, ...needed: RegExp[]): void {
  const problems: string[] = [];
  if (run.code !== 0) problems.push(`exit code ${run.code}`);
  for (const bad of [/WARN: Host error/, /External host error/, /ERROR:/, /FATAL:/]) {
    const line = run.output.split('\n').find((text) => bad.test(text));
    if (line) problems.push(`logged: ${line.trim()}`);
  }
  for (const good of [/Repository finished/, ...needed]) {
    if (!good.test(run.output)) problems.push(`never logged ${good}`);
  }
  if (problems.length > 0) {
    throw new Error(`Renovate run failed: ${problems.join('; ')}\n--- log tail ---\n${run.tail()}`);
  }
}

describe.skipIf(missing !== undefined)(`Renovate ${RENOVATE_VERSION} against Kiln`, () => {
  let kiln: TestServer;
  let git: GitClient;
  let world: World;
  let scratch: string;
  let entry: string;
  let registry: string;
  const system = runtime as Runtime;

  beforeAll(async () => {
    const started = Date.now();
    entry = await installRenovate(system);
    console.info(
      `renovate ${RENOVATE_VERSION} ready in ${((Date.now() - started) / 1000).toFixed(1)} s ` +
        `(runs on ${system.node} ${system.version})`,
    );
    registry = npmRegistry(system);
    scratch = await mkdtemp(path.join(tmpdir(), 'kiln-renovate-'));
    kiln = await startTestServer();
    git = await GitClient.create();
    world = await World.create(kiln, git);
  }, 10 * 60_000);

  afterAll(async () => {
    await kiln?.close();
    await git?.dispose();
    // KILN_KEEP_RENOVATE_LOGS=1 keeps every run's config and log for a look afterwards.
    if (scratch && process.env.KILN_KEEP_RENOVATE_LOGS)
      console.info(`Renovate runs kept in ${scratch}`);
    else if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  /** One Renovate run on `repo` with the global config every run shares, plus `extra`. */
  async function renovate(repo: Seeded, extra: Record<string, unknown>): Promise<RenovateRun> {
    const workDir = await mkdtemp(path.join(scratch, 'run-'));
    return runRenovate(system, entry, workDir, {
      platform: 'gitea',
      endpoint: `${kiln.url}/api/v1/`,
      token: world.botToken,
      gitAuthor: 'Renovate Bot <renovate-bot@example.test>',
      repositories: [repo.fullName],
      // Nothing leaves the machine except npm lookups: no tool downloads, no release notes.
      binarySource: 'global',
      fetchChangeLogs: 'off',
      prHourlyLimit: 0,
      prConcurrentLimit: 0,
      packageRules: [{ matchDatasources: ['npm'], registryUrls: [registry] }],
      ...extra,
    });
  }

  it('onboards a repository with a "Configure Renovate" pull request', async () => {
    const repo = await world.seed('onboard', { 'package.json': MANIFEST });
    const run = await renovate(repo, {
      onboarding: true,
      requireConfig: 'required',
      onboardingConfig: { extends: ['config:recommended'] },
    });
    expectClean(
      run,
      /Branch created.*branch=renovate\/configure/,
      /Onboarding PR created/,
      /Repository result: .*status: onboarding/,
    );

    const pulls: Json[] = await world.pulls(repo);
    expect(pulls).toHaveLength(1);
    const [pull] = pulls;
    expect(pull.title).toBe('Configure Renovate');
    expect(pull.state).toBe('open');
    expect(pull.head.label).toBe('renovate/configure');
    expect(pull.head.ref).toBe('renovate/configure');
    expect(pull.head.repo.full_name).toBe(repo.fullName);
    expect(pull.base.ref).toBe('main');
    expect(pull.user.username).toBe(world.bot.handle);
    expect(await world.branches(repo)).toMatchObject({ 'renovate/configure': pull.head.sha });
    const config = JSON.parse(await world.show(repo, pull.head.sha, 'renovate.json'));
    expect(config.extends).toEqual(['config:recommended']);
  }, 180_000);

  it('opens one pull per outdated dependency, stays quiet on a rerun, and merges', async () => {
    const repo = await world.seed('configured', {
      'package.json': MANIFEST,
      'renovate.json': REPO_CONFIG,
    });
    const first = await renovate(repo, { onboarding: false });
    expectClean(first, /PR created/, /Repository result: done, status: onboarded/);

    const pulls: Json[] = await world.pulls(repo);
    const branches = await world.branches(repo);
    const updated = new Map<string, { pull: Json; version: string }>();
    for (const pull of pulls) {
      expect(pull.state).toBe('open');
      expect(pull.user.username).toBe(world.bot.handle);
      expect(pull.base.ref).toBe('main');
      expect(pull.head.repo.full_name).toBe(repo.fullName);
      expect(pull.head.label).toMatch(/^renovate\//);
      expect(pull.head.ref).toBe(pull.head.label);
      expect(branches[pull.head.label]).toBe(pull.head.sha);
      const manifest = JSON.parse(await world.show(repo, pull.head.sha, 'package.json'));
      const changed = Object.entries(OUTDATED).filter(
        ([name, old]) => manifest.dependencies[name] !== old,
      );
      expect(changed, `${pull.title} changes exactly one dependency`).toHaveLength(1);
      const [name] = changed[0] as [string, string];
      updated.set(name, { pull, version: manifest.dependencies[name] });
    }
    expect([...updated.keys()].sort()).toEqual(Object.keys(OUTDATED).sort());
    expect(pulls).toHaveLength(Object.keys(OUTDATED).length);

    const second = await renovate(repo, { onboarding: false });
    expectClean(second, /Repository result: done, status: onboarded/);
    expect(second.output).not.toMatch(/Branch created|PR created|PR updated|autoclosed/);
    const again: Json[] = await world.pulls(repo);
    expect(again.map((pull) => [pull.number, pull.head.sha]).sort()).toEqual(
      pulls.map((pull) => [pull.number, pull.head.sha]).sort(),
    );

    const lodash = updated.get('lodash');
    if (!lodash) throw new Error('no lodash pull');
    expect(lodash.version).not.toBe(OUTDATED.lodash);
    await world.merge(repo, lodash.pull.number);
    const merged = await world.pull(repo, lodash.pull.number);
    expect(merged).toMatchObject({ state: 'closed', merged: true });
    const main = JSON.parse(await world.show(repo, 'main', 'package.json'));
    expect(main.dependencies).toEqual({ ...OUTDATED, lodash: lodash.version });

    // Renovate reads the merge back from the pull list: nothing reopened or recreated. It
    // deletes the merged branch, and rebases (force-pushes) the ms branch, whose line touches
    // the lodash line and now conflicts; Kiln's pull follows the new tip.
    const third = await renovate(repo, { onboarding: false });
    expectClean(third, /Repository result: done, status: activated/, /Deleting orphan branch/);
    expect(third.output).not.toMatch(/Branch created|PR created|autoclosed/);
    const after: Json[] = await world.pulls(repo);
    expect(after).toHaveLength(pulls.length);
    const tips = await world.branches(repo);
    expect(tips[lodash.pull.head.label]).toBeUndefined();
    for (const pull of after.filter((each) => each.number !== lodash.pull.number)) {
      expect(pull.state).toBe('open');
      expect(tips[pull.head.label]).toBe(pull.head.sha);
    }
    const ms = updated.get('ms');
    const rebased = after.find((pull) => pull.number === ms?.pull.number);
    expect(rebased.head.sha).not.toBe(ms?.pull.head.sha);
    const onTop = JSON.parse(await world.show(repo, rebased.head.sha, 'package.json'));
    expect(onTop.dependencies).toEqual({ ...main.dependencies, ms: ms?.version });
  }, 300_000);
});
