import path from 'node:path';
import { type Database, knownMigrations } from '../../db/database.ts';
import { appliedMigrations } from '../../db/schema-facts.ts';
import { serveLockState } from '../../db/serve-lock.ts';
import { readHeadFile } from '../../git/head-file.ts';
import { hooksAreCurrent } from '../../git/hooks.ts';
import { objectsDir, readAlternates } from '../../git/object-store.ts';
import { checkConnectivity, listRepositoryDirs } from '../../git/repository-dump.ts';
import { widerThanPrivate } from '../../lib/private-modes.ts';
import { SECRET_KEY_FILE } from '../../lib/secret-key-file.ts';
import { type ActionOwnerFacts, uncontrolledActionOwners } from '../admin/action-owners.ts';
import { unreadableKeys } from '../keys/ssh-key.service.ts';
import type { LfsService } from '../lfs/lfs.service.ts';
import { keyCheck } from '../secret-key/key-check.ts';

/** One finding: what is wrong, where, and what to do about it. */
export type Finding = { readonly subject: string; readonly problem: string; readonly fix: string };

export type DoctorReport = {
  readonly checked: { readonly migrations: number; readonly repositories: number };
  readonly findings: readonly Finding[];
};

export type DoctorSources = {
  readonly database: Database;
  /** Where the database says repositories are. */
  readonly repos: {
    listLocations(): Promise<
      ReadonlyArray<{ readonly owner: string; readonly name: string; readonly private: boolean }>
    >;
  };
  readonly dataDir: string;
  readonly repositoriesRoot: string;
  /** Who the action owners and administrators are, and the accounts to check against them. */
  readonly accounts?: ActionOwnerFacts;
  /** Git LFS objects, and one in how many is hashed again (1: every one). */
  readonly lfs?: { readonly objects: Pick<LfsService, 'check'>; readonly hashEvery: number };
  /** The key in use (service.secret-key, else the data directory's own), to check secrets with. */
  readonly secretKey?: string | undefined;
  /** The stored SSH keys, read again as the API would read them. */
  readonly sshKeys?: Parameters<typeof unreadableKeys>[0];
};

/** Wide paths reported one by one; past this many, one finding counts the rest. */
const MODES_SHOWN = 20;

/** Directories and files of the data directory that group or others may open (private-modes.ts). */
async function checkModes(dataDir: string): Promise<Finding[]> {
  const root = path.resolve(dataDir);
  const wide = await widerThanPrivate(root, MODES_SHOWN + 1);
  const findings: Finding[] = wide.slice(0, MODES_SHOWN).map((entry) => ({
    subject: path.relative(root, entry.path) || root,
    problem: `mode ${entry.mode.toString(8).padStart(4, '0')} lets group or others in (a Kiln ${entry.directory ? 'directory is 0700' : 'file is 0600'})`,
    fix: `chmod go-rwx ${entry.path} (kiln serve, migrate and restore do it for the whole directory)`,
  }));
  if (wide.length > MODES_SHOWN) {
    findings.push({
      subject: root,
      problem: 'more paths than these let group or others in',
      fix: `chmod -R go-rwx ${root}`,
    });
  }
  return findings;
}

/** A serve lock whose process is gone: `serve` takes it over, but it may also be a copy. */
function checkServeLock(dataDir: string): Finding[] {
  const lock = serveLockState(dataDir);
  if (!lock || lock.alive) return [];
  return [
    {
      subject: lock.file,
      problem: `stale serve lock: process ${lock.pid ?? '(unreadable)'} is not running (a crash, a kill, or a copy of another host's data directory)`,
      fix: `rm ${lock.file} (kiln serve also takes a stale lock over by itself)`,
    },
  ];
}

/** Secrets stored in the data directory that the key in use no longer opens (secret-key-file.ts). */
function checkSecretKey(dataDir: string, secretKey: string | undefined): Finding[] {
  const state = keyCheck(dataDir, secretKey);
  if (state !== 'mismatch' && state !== 'no key') return [];
  return [
    {
      subject: path.resolve(dataDir),
      problem:
        state === 'no key'
          ? 'secrets were stored here under a secret key, but none is set and the data directory holds none: CI secrets, webhook secrets and federation keys do not decrypt'
          : 'the secret key in use is not the one the stored CI secrets, webhook secrets and federation keys were sealed under: they do not decrypt',
      fix: `set SERVICE_SECRET_KEY (service.secret-key) back to the key the secrets were sealed under, or unset it to use ${path.join(path.resolve(dataDir), SECRET_KEY_FILE)} if that was the key; otherwise store the secrets again`,
    },
  ];
}

async function checkMigrations(
  database: Database,
): Promise<{ count: number; findings: Finding[] }> {
  const known = knownMigrations();
  const applied = await appliedMigrations(database);
  const findings: Finding[] = [];
  const unknown = applied.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    findings.push({
      subject: 'database',
      problem: `migrated by a newer Kiln (unknown migration ${unknown.join(', ')})`,
      fix: 'run the newer Kiln that migrated it',
    });
  }
  const pending = known.filter((name) => !applied.includes(name));
  if (pending.length > 0) {
    findings.push({
      subject: 'database',
      problem: `${pending.length} migration(s) not applied yet (${pending.join(', ')})`,
      fix: 'run `kiln migrate` (or start the server, which migrates first)',
    });
  }
  return { count: applied.length, findings };
}

type RepoRow = { dir: string; private: boolean };

async function repositoryRows(repos: DoctorSources['repos']): Promise<Map<string, RepoRow>> {
  const locations = await repos.listLocations();
  return new Map(
    locations.map((location) => {
      const dir = `${location.owner}/${location.name}.git`;
      return [dir, { dir, private: location.private }];
    }),
  );
}

async function checkHead(gitDir: string): Promise<string | undefined> {
  let head: string;
  try {
    head = readHeadFile(gitDir);
  } catch {
    return 'has no HEAD file';
  }
  if (!/^ref: refs\/heads\/[^\s]+\n?$/.test(head)) return 'HEAD does not name a branch';
  return undefined;
}

/**
 * The alternates invariant: a repository borrows objects only from a public repository of this
 * instance, since a repository serves every object it can reach, by id, to its own readers.
 */
async function checkAlternates(
  root: string,
  dir: string,
  rows: ReadonlyMap<string, RepoRow>,
): Promise<string[]> {
  const problems: string[] = [];
  for (const store of await readAlternates(objectsDir(path.join(root, dir)))) {
    const relative = path.relative(root, path.dirname(store));
    const lender = rows.get(relative.split(path.sep).join('/'));
    if (relative.startsWith('..') || !lender) {
      problems.push(`borrows objects from ${store}, which is not a repository of this instance`);
    } else if (lender.private) {
      problems.push(`borrows objects from ${lender.dir}, which is private`);
    }
  }
  return problems;
}

async function checkRepository(
  root: string,
  dir: string,
  rows: ReadonlyMap<string, RepoRow>,
): Promise<Finding[]> {
  const gitDir = path.join(root, dir);
  const findings: Finding[] = [];
  const add = (problem: string, fix: string) => findings.push({ subject: dir, problem, fix });
  if (!rows.has(dir)) {
    add(
      'no database row names this repository',
      'restore its row from a dump, or remove the directory',
    );
  }
  const head = await checkHead(gitDir);
  if (head) add(head, 'write `ref: refs/heads/<default branch>` into HEAD');
  if (!(await hooksAreCurrent(gitDir))) {
    add('its hooks are missing or not the current ones', 'start Kiln once: it rewrites them');
  }
  for (const problem of await checkAlternates(root, dir, rows)) {
    add(problem, 'start Kiln once: it gives such repositories their own objects');
  }
  const broken = await checkConnectivity(gitDir);
  if (broken)
    add(`git fsck finds missing objects: ${broken.split('\n')[0]}`, 'restore it from a dump');
  return findings;
}

/** Each action owner held by an account administrators do not control (action-owners.ts). */
async function checkActionOwners(facts: ActionOwnerFacts): Promise<Finding[]> {
  return (await uncontrolledActionOwners(facts)).map(({ handle, kind, holders }) => ({
    subject: handle,
    problem:
      kind === 'user'
        ? `is an action owner (service.ci.action-owners) held by ${handle}, who is not an administrator: runners fetch host-less \`uses: ${handle}/…\` from their repositories`
        : `is an action owner (service.ci.action-owners) whose organisation is owned by ${holders.join(', ')}, not administrators: runners fetch host-less \`uses: ${handle}/…\` from what they published`,
    fix:
      kind === 'user'
        ? `as an administrator, review and delete ${handle}'s repositories (and disable the account with \`kiln user disable\`), then re-create the name as an administrator's organisation; or take it out of service.ci.action-owners`
        : `as an administrator, make an administrator an owner of ${handle} and remove ${holders.join(', ')} from its owners, then review every repository and tag it holds (delete what you did not publish, then mirror again); or take the name out of service.ci.action-owners`,
  }));
}

/**
 * Checks an instance without changing it: the database's migrations, every repository on disk
 * against the database (a row for each, HEAD, hooks, the alternates invariant, git fsck's
 * connectivity check), the modes of the data directory's files (private to Kiln's user), that
 * administrators control every action owner already taken, and that Git LFS objects are whole.
 */
export async function runChecks(sources: DoctorSources): Promise<DoctorReport> {
  const migrations = await checkMigrations(sources.database);
  const findings = [...migrations.findings];
  // The accounts are read only from a database this Kiln has migrated (it knows their columns).
  if (sources.accounts && findings.length === 0) {
    findings.push(...(await checkActionOwners(sources.accounts)));
  }
  if (sources.lfs && migrations.findings.length === 0) {
    const { problems } = await sources.lfs.objects.check(sources.lfs.hashEvery);
    for (const problem of problems) {
      findings.push({
        subject: 'lfs',
        problem,
        fix: 'restore the lfs/ directory from a dump, or push the object again with `git lfs push --all`',
      });
    }
  }
  if (sources.sshKeys && migrations.findings.length === 0) {
    for (const { key, problem } of await unreadableKeys(sources.sshKeys)) {
      findings.push({
        subject: `SSH key ${key.fingerprint} (${key.title})`,
        problem: `the key no longer reads as one Kiln accepts: ${problem}`,
        fix: 'remove the key and have its owner add a new one',
      });
    }
  }
  findings.push(...(await checkModes(sources.dataDir)));
  findings.push(...checkServeLock(sources.dataDir));
  findings.push(...checkSecretKey(sources.dataDir, sources.secretKey));
  const root = path.resolve(sources.repositoriesRoot);
  const rows = await repositoryRows(sources.repos);
  const dirs = await listRepositoryDirs(root);
  for (const dir of dirs) findings.push(...(await checkRepository(root, dir, rows)));
  const onDisk = new Set(dirs);
  for (const row of rows.values()) {
    if (!onDisk.has(row.dir)) {
      findings.push({
        subject: row.dir,
        problem: 'the database names this repository but its directory is missing',
        fix: 'restore the directory from a dump, or delete the repository',
      });
    }
  }
  return { checked: { migrations: migrations.count, repositories: dirs.length }, findings };
}
