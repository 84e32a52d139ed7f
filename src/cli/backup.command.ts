import { createReadStream, createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import type { App } from '../app.ts';
import type { Config } from '../config/config.ts';
import { openDatabase } from '../db/database.ts';
import { runChecks } from '../domain/backup/doctor.service.ts';
import { writeDump } from '../domain/backup/dump.service.ts';
import { restoreDump } from '../domain/backup/restore.service.ts';
import { KILN_VERSION } from '../version.ts';

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * `kiln dump --output FILE`: the archive is written beside FILE and renamed into place when it is
 * whole, so a dump that fails half-way never leaves a file that looks like a good one.
 */
export async function runDump(app: App, output: string): Promise<void> {
  const toStdout = output === '-';
  const partial = `${output}.partial`;
  const out = toStdout ? process.stdout : createWriteStream(partial, { mode: 0o600 });
  try {
    const summary = await writeDump(
      {
        database: app.database,
        dataDir: app.dataDir,
        repositoriesRoot: app.git.paths.root,
        kilnVersion: KILN_VERSION,
      },
      out,
    );
    if (!toStdout) {
      out.end();
      await finished(out);
      await rename(partial, output);
    }
    process.stderr.write(
      `dumped ${summary.rows} rows of ${summary.tables} tables and ${summary.repositories} repositories (${megabytes(summary.bytes)}) to ${toStdout ? 'stdout' : output}\n`,
    );
  } catch (error) {
    if (!toStdout) {
      out.destroy();
      await rm(partial, { force: true });
    }
    throw error;
  }
}

/** `kiln restore --input FILE`: into the configured data directory and database, both empty. */
export async function runRestore(config: Config, input: string): Promise<void> {
  const source = input === '-' ? process.stdin : createReadStream(input);
  const summary = await restoreDump(
    { databaseUrl: config.databaseUrl, dataDir: config.dataDir },
    source,
  );
  process.stderr.write(
    `restored ${summary.rows} rows and ${summary.repositories} repositories from a dump of Kiln ${summary.manifest.kilnVersion} (${summary.manifest.engine}, ${summary.manifest.createdAt}) into ${config.databaseUrl ? 'PostgreSQL' : 'SQLite'} and ${config.dataDir}\n`,
  );
}

/** `kiln doctor`: prints each finding with its fix; exit code 1 when there is any. */
export async function runDoctor(config: Config): Promise<number> {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const report = await runChecks({
      database,
      repositoriesRoot: `${config.dataDir}/repositories`,
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
