import { closeSync, createReadStream, fsyncSync, openSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { lfsService } from '../app.ts';
import type { Config } from '../config/config.ts';
import { migrate, openDatabase } from '../db/database.ts';
import { AdminPolicy } from '../domain/admin/admin.policy.ts';
import type { DumpSources, DumpSummary } from '../domain/backup/dump.service.ts';
import { SshKeyStore } from '../domain/keys/ssh-key.store.ts';
import { OrgService } from '../domain/orgs/org.service.ts';
import { OrgStore } from '../domain/orgs/org.store.ts';
import { HousekeepingStore } from '../domain/repos/housekeeping.store.ts';
import { RepoStore } from '../domain/repos/repo.store.ts';
import { UserService } from '../domain/users/user.service.ts';
import { UserStore } from '../domain/users/user.store.ts';
import { startedUp } from '../start-up.js';
import { KILN_VERSION } from '../version.ts';
import { type Command, requiredValue, UsageError } from './command.ts';
import { withSecretKey } from './defaults.ts';

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * `kiln dump --output FILE`: the archive is written beside FILE and renamed into place when it is
 * whole, so a dump that fails half-way never leaves a file that looks like a good one.
 */
async function runDump(config: Config, output: string): Promise<void> {
  // Only the database and the data directory's paths: building the whole application (its
  // services, pools and their modules) cost a dump about a second of a 3 s run.
  const dataDir = resolve(config.dataDir);
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir });
  try {
    await migrate(database);
    // Bulk work from here on: V8 may optimize what runs hot (see start-up.js).
    startedUp();
    await dumpTo(
      {
        database,
        leases: new HousekeepingStore(database.db),
        dataDir,
        repositoriesRoot: join(dataDir, 'repositories'),
        kilnVersion: KILN_VERSION,
      },
      output,
    );
  } finally {
    await database.close();
  }
}

// The dump, restore and doctor code is imported by the command that runs it: `kiln serve`, which
// shares this command table, has no use for it.
async function dumpTo(sources: DumpSources, output: string): Promise<void> {
  const { writeDump } = await import('../domain/backup/dump.service.ts');
  const { fileSink, streamSink } = await import('../lib/tar-writer.ts');
  if (output === '-') {
    const summary = await writeDump(sources, streamSink(process.stdout));
    report(summary, 'stdout');
    return;
  }
  const partial = `${output}.partial`;
  const fd = openSync(partial, 'w', 0o600);
  let summary: DumpSummary;
  try {
    summary = await writeDump(sources, fileSink(fd));
    fsyncSync(fd);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  } finally {
    closeSync(fd);
  }
  await rename(partial, output);
  report(summary, output);
}

function report(summary: DumpSummary, where: string): void {
  process.stderr.write(
    `dumped ${summary.rows} rows of ${summary.tables} tables and ${summary.repositories} repositories (${megabytes(summary.bytes)}) to ${where}\n`,
  );
}

/** A name from an archive, its control characters escaped so it cannot drive the terminal. */
function printable(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.charCodeAt(0);
    const control = code < 0x20 || (code >= 0x7f && code <= 0x9f);
    out += control ? `\\x${code.toString(16).padStart(2, '0')}` : char;
  }
  return out;
}

/** `kiln restore --input FILE`: into the configured data directory and database, both empty. */
async function runRestore(config: Config, input: string): Promise<void> {
  const source = input === '-' ? process.stdin : createReadStream(input);
  const { restoreDump } = await import('../domain/backup/restore.service.ts');
  // The data directory is made 0700 and tightened by the restore itself, once it is known empty.
  const summary = await restoreDump(
    { databaseUrl: config.databaseUrl, dataDir: config.dataDir },
    source,
  );
  process.stderr.write(
    `restored ${summary.rows} rows and ${summary.repositories} repositories from a dump of Kiln ${summary.manifest.kilnVersion} (${summary.manifest.engine}, ${summary.manifest.createdAt}) into ${config.databaseUrl ? 'PostgreSQL' : 'SQLite'} and ${config.dataDir}\n`,
  );
  // A dump carries the source's own key (if it had one); without it, the restored instance makes one.
  withSecretKey(config);
  const { paths, count } = summary.skipped;
  if (count === 0) return;
  // Not an error: a dump of an older Kiln carries config and hooks, which are rewritten anyway.
  process.stderr.write(
    `skipped ${count} path(s) of the dump that are not data (objects, refs, HEAD) or not Kiln's to restore:\n`,
  );
  for (const skipped of paths) {
    process.stderr.write(`  ${printable(skipped.path)}: ${printable(skipped.reason)}\n`);
  }
  if (paths.length < count) process.stderr.write(`  … and ${count - paths.length} more\n`);
}

/** `kiln doctor` hashes one Git LFS object in this many again unless told to hash them all. */
const LFS_SAMPLE = 10;

/** `kiln doctor`: prints each finding with its fix; exit code 1 when there is any. */
async function runDoctor(config: Config, lfsHash: string | undefined): Promise<number> {
  if (lfsHash !== undefined && lfsHash !== 'all' && lfsHash !== 'sample') {
    throw new UsageError('--lfs-hash takes `all` or `sample`');
  }
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const userStore = new UserStore(database.db);
    const admins = new AdminPolicy(config.adminHandles, config.ci.actionOwners);
    const { runChecks } = await import('../domain/backup/doctor.service.ts');
    const report = await runChecks({
      database,
      repos: new RepoStore(database.db),
      sshKeys: new SshKeyStore(database.db),
      dataDir: config.dataDir,
      repositoriesRoot: `${config.dataDir}/repositories`,
      secretKey: config.secretKey,
      accounts: {
        admins,
        users: new UserService(userStore),
        orgs: new OrgService(new OrgStore(database.db, userStore), userStore, admins),
      },
      lfs: {
        objects: lfsService(database, config.dataDir, config.lfs.maxFileSize),
        hashEvery: lfsHash === 'all' ? 1 : LFS_SAMPLE,
      },
    });
    for (const finding of report.findings) {
      process.stdout.write(
        `problem: ${finding.subject}: ${finding.problem}\n  fix: ${finding.fix}\n`,
      );
    }
    process.stdout.write(
      `checked the configuration, ${report.checked.migrations} migrations and ${report.checked.repositories} repositories: ${report.findings.length === 0 ? 'no problems found' : `${report.findings.length} problem(s)`}\n`,
    );
    return report.findings.length === 0 ? 0 : 1;
  } finally {
    await database.close();
  }
}

/** `dump`, `restore` and `doctor`: backups and checks (docs/deployment.md). */
export const backupCommands: readonly Command[] = [
  {
    name: 'dump',
    summary: 'Write a consistent archive of the database and every repository',
    options: {
      output: {
        type: 'string',
        short: 'o',
        value: 'FILE',
        help: 'the tar file to write ("-" writes to stdout)',
        required: true,
      },
    },
    notes: ['Runs beside a serving Kiln; a push meanwhile leaves each ref old or new, never torn.'],
    run: ({ values, config }) => runDump(config(), requiredValue(values, 'output')),
  },
  {
    name: 'restore',
    summary: 'Restore a dump into an empty data directory and database',
    options: {
      input: {
        type: 'string',
        short: 'i',
        value: 'FILE',
        help: 'the dump to read ("-" reads stdin)',
        required: true,
      },
    },
    notes: [
      'The configured database and data directory must be empty; either engine will do.',
      "Repositories get Kiln's own config and hooks and only the dump's objects, refs and HEAD;",
      'whatever else the dump holds is skipped and listed (docs/deployment.md).',
    ],
    run: async ({ values, config }) => {
      startedUp();
      await runRestore(config(), requiredValue(values, 'input'));
    },
  },
  {
    name: 'doctor',
    summary: 'Check the database and every repository, and say what to fix',
    options: {
      'lfs-hash': {
        type: 'string',
        value: 'all|sample',
        help: 'hash every Git LFS object again, or one in ten (the default); sizes are always checked',
      },
    },
    notes: [
      'Changes nothing. Exit code 1 when it finds a problem, a data directory file or',
      'directory that group or others may open among them.',
    ],
    run: async ({ values, config }) => {
      const lfsHash = values['lfs-hash'];
      process.exitCode = await runDoctor(
        config(),
        typeof lfsHash === 'string' ? lfsHash : undefined,
      );
    },
  },
];
