/**
 * Adds lockfile entries for platform-specific optional packages (other operating systems and
 * CPUs) that the registry this project installs from does not serve. Without them `npm ci`
 * refuses the lockfile as out of sync; with them it skips those packages on this platform as it
 * would any optional package for another OS. Run after changing dependencies:
 *   node scripts/lock-platform-stubs.ts
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

type Entry = {
  version?: string;
  optional?: boolean;
  dev?: boolean;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  optionalDependencies?: Record<string, string>;
};
type Lock = { packages: Record<string, Entry> };

const OSES = [
  'android',
  'darwin',
  'win32',
  'linux',
  'freebsd',
  'openbsd',
  'netbsd',
  'sunos',
  'aix',
];
const CPUS: Record<string, string> = {
  arm64: 'arm64',
  x64: 'x64',
  ia32: 'ia32',
  armv7: 'arm',
  arm: 'arm',
  riscv64: 'riscv64',
  s390x: 's390x',
  ppc64: 'ppc64',
  loong64: 'loong64',
};

function stubFor(name: string, version: string, dev: boolean): Entry {
  const parts = name.split('/').pop()?.split('-') ?? [];
  const entry: Entry = { version, optional: true };
  if (dev) entry.dev = true;
  const os = parts.find((part) => OSES.includes(part));
  if (os) entry.os = [os];
  const cpu = parts.map((part) => CPUS[part]).find(Boolean);
  if (cpu) entry.cpu = [cpu];
  if (parts.includes('musl')) entry.libc = ['musl'];
  return entry;
}

function missingFromNpmCi(): string | undefined {
  try {
    execFileSync('npm', ['ci', '--dry-run', '--no-audit', '--no-fund'], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    const text = String((error as { stderr?: Buffer }).stderr ?? '');
    return text.match(/Missing: (.+?)@\S* from lock file/)?.[1];
  }
}

let added = 0;
for (let missing = missingFromNpmCi(); missing; missing = missingFromNpmCi()) {
  const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as Lock;
  const parent = Object.values(lock.packages).find(
    (entry) => entry.optionalDependencies?.[missing],
  );
  const version = parent?.optionalDependencies?.[missing];
  if (!parent || !version) throw new Error(`${missing} is missing but no package asks for it`);
  lock.packages[`node_modules/${missing}`] = stubFor(missing, version, parent.dev === true);
  writeFileSync('package-lock.json', `${JSON.stringify(lock, null, 2)}\n`);
  added += 1;
  if (added > 200) throw new Error('too many missing packages; giving up');
}
console.log(`lock-platform-stubs: ${added} entries added; npm ci accepts the lockfile`);
