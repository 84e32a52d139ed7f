/**
 * Fails when src/gen/ is not what `buf generate` makes from proto/ today.
 *
 * Runs buf (with buf.gen.yaml, so the same plugin and options) into a temporary directory and
 * compares every file with the checked-in copy. Exit 0 when identical, 1 with the list of stale,
 * missing and extra files otherwise (fix: `npx buf generate` and commit src/gen/).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const genDir = 'src/gen';
const bin = join(root, 'node_modules', '.bin');

/** Relative paths of all files below dir (none when dir does not exist). */
function listFiles(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
      .sort();
  } catch {
    return [];
  }
}

const outDir = mkdtempSync(join(tmpdir(), 'kiln-gen-'));
try {
  // protoc-gen-es is found on PATH, so put the project's node_modules/.bin first.
  const result = spawnSync(join(bin, 'buf'), ['generate', '--output', outDir], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` },
  });
  if (result.error !== undefined || result.status !== 0) {
    console.error('check-generated: `buf generate` failed');
    console.error(result.error?.message ?? result.stderr);
    process.exit(1);
  }

  const freshDir = join(outDir, genDir);
  const checkedInDir = join(root, genDir);
  const fresh = listFiles(freshDir);
  const checkedIn = listFiles(checkedInDir);
  const problems: string[] = [];
  for (const file of fresh) {
    if (!checkedIn.includes(file)) {
      problems.push(`missing: ${genDir}/${file}`);
    } else if (!readFileSync(join(freshDir, file)).equals(readFileSync(join(checkedInDir, file)))) {
      problems.push(`stale:   ${genDir}/${file}`);
    }
  }
  for (const file of checkedIn) {
    if (!fresh.includes(file)) problems.push(`extra:   ${genDir}/${file}`);
  }

  if (problems.length > 0) {
    console.error(
      `check-generated: ${genDir}/ does not match what buf.gen.yaml makes from proto/:`,
    );
    for (const problem of problems) console.error(`  ${problem}`);
    console.error('Run `npx buf generate` and commit src/gen/.');
    process.exit(1);
  }
  console.log(`check-generated: ${genDir}/ is up to date (${fresh.length} files)`);
} finally {
  rmSync(outDir, { recursive: true, force: true });
}
