import { closeSync, createReadStream, fsyncSync, openSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { App } from '../app.ts';
import type { Config } from '../config/config.ts';
import { openDatabase } from '../db/database.ts';
import { runChecks } from '../domain/backup/doctor.service.ts';
import { type DumpSummary, writeDump } from '../domain/backup/dump.service.ts';
import { restoreDump } from '../domain/backup/restore.service.ts';
import { fileSink, streamSink } from '../lib/tar-writer.ts';
import { KILN_VERSION } from '../version.ts';

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * `kiln dump --output FILE`: the archive is written beside FILE and renamed into place when it is
 * whole, so a dump that fails half-way never leaves a file that looks like a good one.
 */
export async function runDump(app: App, output: string): Promise<void> {
  const sources = {
    database: app.database,
    dataDir: app.dataDir,
    repositoriesRoot: app.git.paths.root,
    kilnVersion: KILN_VERSION,
  };
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
