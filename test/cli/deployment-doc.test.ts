/**
 * docs/deployment.md's commands, run as written: every shell block on the page names the test
 * that runs it, and the PostgreSQL ones run here against the throwaway server of
 * scripts/with-postgres.sh (skipped, saying so, without one). The installation and systemd
 * blocks run in test/cli/systemd.test.ts, the backup block in test/cli/dump-restore.test.ts.
 */
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { LAUNCHER } from '../support/cli.ts';
import { postgresAdminUrl } from '../support/database.ts';
import { runScript, shellBlocks } from '../support/doc-blocks.ts';

const blocks = shellBlocks('deployment.md');

/**
 * The page's role and database are both `kiln`, but scripts/with-postgres.sh names its own
 * superuser `kiln` too: the PostgreSQL blocks run with `kiln_doc` in their place. Each rename
 * must apply, so a page that changes these names fails here instead of running untested.
 */
const RENAMES: readonly [string, string][] = [
  ['CREATE ROLE kiln ', 'CREATE ROLE kiln_doc '],
  ['CREATE DATABASE kiln OWNER kiln ', 'CREATE DATABASE kiln_doc OWNER kiln_doc '],
  ['postgres://kiln:', 'postgres://kiln_doc:'],
  ['/kiln\n', '/kiln_doc\n'],
];

function renamed(scripts: readonly string[]): string[] {
  let text = scripts.join('\0');
  for (const [from, to] of RENAMES) {
    expect(text, `the page no longer says ${JSON.stringify(from)}`).toContain(from);
    text = text.replaceAll(from, to);
  }
  return text.split('\0');
}

describe('docs/deployment.md', () => {
  it('names the test that runs each of its shell blocks', () => {
    expect(blocks.length).toBeGreaterThan(0);
    expect(blocks.map((block) => block.tag)).toEqual(
      blocks.map((block) =>
        ['install', 'systemd', 'postgres', 'backup'].includes(block.tag ?? '')
          ? block.tag
          : 'untested',
      ),
    );
  });
});

describe.skipIf(!postgresAdminUrl)(
  `docs/deployment.md → PostgreSQL${postgresAdminUrl ? '' : ' (needs scripts/with-postgres.sh)'}`,
  () => {
    const admin = new URL(postgresAdminUrl ?? 'postgres://localhost');
    const query = async (sql: string) => {
      const client = new pg.Client({ connectionString: admin.href });
      await client.connect();
      try {
        return await client.query(sql);
      } finally {
        await client.end();
      }
    };
    const dropAll = async () => {
      await query('DROP DATABASE IF EXISTS kiln_doc WITH (FORCE)');
      await query('DROP ROLE IF EXISTS kiln_doc');
    };
    afterAll(dropAll);

    it('creates the role and the database, and Kiln migrates it as that role', async () => {
      await dropAll();
      const bin = mkdtempSync(join(tmpdir(), 'kiln-doc-bin-'));
      symlinkSync(LAUNCHER, join(bin, 'kiln'));
      const env = {
        PATH: `${bin}:${process.env.PATH ?? ''}`,
        HOME: process.env.HOME ?? '/tmp',
        // Where the page's superuser psql and its URL (no port: 5432) find the test server.
        PGHOST: admin.hostname,
        PGPORT: admin.port || '5432',
        PGUSER: decodeURIComponent(admin.username),
        PGDATABASE: admin.pathname.slice(1),
        SERVICE_DATA_DIR: join(mkdtempSync(join(tmpdir(), 'kiln-doc-')), 'data'),
      };
      const outputs: string[] = [];
      const scripts = renamed(blocks.filter((b) => b.tag === 'postgres').map((b) => b.script));
      for (const script of scripts) {
        const result = await runScript(script, env);
        // A first migrate makes the data directory's secret key and says where, once; nothing else.
        const firstStart = /^kiln: warning: made a secret key in .*\n/m;
        expect(result.stderr.replace(firstStart, '')).toBe('');
        expect(result.code, script).toBe(0);
        outputs.push(result.stdout);
      }
      expect(outputs.join('')).toMatch(/^database is up to date \(\d+ migrations applied\)$/m);
      const own = await query(
        "SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = 'kiln_doc'",
      );
      expect(own.rows).toEqual([{ owner: 'kiln_doc' }]);
      // The tables are the role's own: Kiln connected as it, not as the superuser.
      const inDatabase = new URL(admin.href);
      inDatabase.pathname = '/kiln_doc';
      const client = new pg.Client({ connectionString: inDatabase.href });
      await client.connect();
      try {
        const owners = await client.query(
          "SELECT DISTINCT tableowner FROM pg_tables WHERE tablename IN ('users', 'kiln_migrations')",
        );
        expect(owners.rows).toEqual([{ tableowner: 'kiln_doc' }]);
      } finally {
        await client.end();
      }
    });
  },
);
