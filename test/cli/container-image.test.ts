/**
 * scripts/build-image.sh: the image it writes from Debian's packages runs. Its root file system,
 * unpacked with umoci, is started with chroot in a mount and PID namespace of its own, as the
 * image's user with the image's environment, until `/api/v1/version` answers; its config says
 * what docs/deployment.md promises (a non-root user, `kiln serve`, ports, the /data volume, a
 * health check), and the docker-archive tarball carries the same image.
 *
 * Slow (a Debian root file system and a 500 MB image: 3.5 minutes on an idle two-core machine,
 * 7 or more on a busy one), so it runs only when asked (KILN_TEST_IMAGE=1, which .ci/run sets
 * for a step of its own beside the suite), where the tools are (mmdebstrap, umoci, skopeo,
 * unshare; .ci/run installs them), as root, and not in the PostgreSQL round: the image holds
 * no database.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const TOOLS = ['mmdebstrap', 'umoci', 'skopeo', 'unshare', 'chroot'];
const present = TOOLS.every((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0);
const root = process.getuid?.() === 0;
const postgresRound = process.env.KILN_TEST_DATABASE_URL !== undefined;
const asked = process.env.KILN_TEST_IMAGE === '1';
const why = !asked
  ? ' (KILN_TEST_IMAGE=1 runs it)'
  : !present
    ? ` (needs ${TOOLS.join(', ')})`
    : !root
      ? ' (needs root)'
      : postgresRound
        ? ' (once, in the SQLite round)'
        : '';

type ImageConfig = {
  User?: string;
  Entrypoint?: string[];
  Cmd?: string[];
  ExposedPorts?: Record<string, unknown>;
  Volumes?: Record<string, unknown>;
  Env?: string[];
  Healthcheck?: { Test?: string[] };
};

function run(program: string, args: readonly string[]): string {
  const result = spawnSync(program, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) {
    throw new Error(`${program} ${args.join(' ')} failed: ${result.stderr}${result.stdout}`);
  }
  return result.stdout;
}

/** The config of the image tagged `latest` in an OCI layout, read from its blobs. */
function ociConfig(layout: string): ImageConfig {
  const blob = (digest: string) =>
    JSON.parse(readFileSync(join(layout, 'blobs', ...digest.split(':')), 'utf8'));
  const index = JSON.parse(readFileSync(join(layout, 'index.json'), 'utf8'));
  const entry = index.manifests.find(
    (m: { annotations?: Record<string, string> }) =>
      m.annotations?.['org.opencontainers.image.ref.name'] === 'latest',
  );
  return blob(blob(entry.digest).config.digest).config;
}

describe.skipIf(why !== '')(`the container image${why}`, () => {
  let out: string;
  let rootfs: string;
  let server: ChildProcess | undefined;

  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), 'kiln-image-'));
    run(join(ROOT, 'scripts', 'build-image.sh'), [out]);
    run('umoci', ['unpack', '--image', `${join(out, 'oci')}:latest`, join(out, 'bundle')]);
    rootfs = join(out, 'bundle', 'rootfs');
  }, 900_000);
  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server?.once('exit', resolve));
      server.kill('SIGKILL');
      await exited;
    }
    // chroot --userspec changes the user, which clears the parent-death signal unshare set,
    // so Kiln outlives unshare: every process whose root is the image's is stopped here.
    if (rootfs) stopProcessesRootedIn(rootfs);
    if (out) rmSync(out, { recursive: true, force: true });
  });

  it('says who runs what, where the data lives and how to check its health', () => {
    const config = ociConfig(join(out, 'oci'));
    expect(config.User).toBe('kiln:kiln');
    expect(config.Entrypoint).toEqual(['/usr/local/bin/kiln']);
    expect(config.Cmd).toEqual(['serve']);
    expect(Object.keys(config.ExposedPorts ?? {}).sort()).toEqual(['2222/tcp', '3000/tcp']);
    expect(Object.keys(config.Volumes ?? {})).toEqual(['/data']);
    expect(config.Env).toContain('SERVICE_DATA_DIR=/data');
    expect(config.Env).toContain('SERVICE_HTTP_HOST=0.0.0.0');
    expect(config.Healthcheck?.Test?.join(' ')).toContain('/healthz');
    const passwd = readFileSync(join(rootfs, 'etc', 'passwd'), 'utf8');
    expect(passwd).toMatch(/^kiln:x:[1-9]\d*:[1-9]\d*:.*:\/data:\/usr\/sbin\/nologin$/m);
  });

  it('holds Kiln with its production dependencies only, and git', () => {
    const kiln = join(rootfs, 'opt', 'kiln');
    expect(statSync(join(kiln, 'node_modules', 'node', 'bin', 'node')).isFile()).toBe(true);
    expect(statSync(join(kiln, 'node_modules', 'fastify')).isDirectory()).toBe(true);
    expect(() => statSync(join(kiln, 'node_modules', 'vitest'))).toThrow();
    expect(() => statSync(join(kiln, 'test'))).toThrow();
    expect(statSync(join(rootfs, 'usr', 'bin', 'git')).isFile()).toBe(true);
  });

  it('carries the same image in the docker-archive tarball', () => {
    const manifest = JSON.parse(
      run('tar', ['-xOf', join(out, 'kiln-image.tar'), 'manifest.json']),
    ) as { Config: string; RepoTags: string[] }[];
    expect(manifest[0]?.RepoTags).toEqual(['docker.io/library/kiln:latest']);
    const config = JSON.parse(
      run('tar', ['-xOf', join(out, 'kiln-image.tar'), manifest[0]!.Config]),
    ) as { config: ImageConfig };
    expect(config.config).toEqual(ociConfig(join(out, 'oci')));
  });

  it('serves the API from its root file system as its own user', async () => {
    const port = String(20_000 + (process.pid % 20_000));
    // The image's own environment, with the addresses moved to loopback and free ports.
    const env = [
      ...(ociConfig(join(out, 'oci')).Env ?? []),
      'SERVICE_HTTP_HOST=127.0.0.1',
      `SERVICE_HTTP_PORT=${port}`,
      // SSH too: the image's 2222 may be taken on the machine running the test.
      'SERVICE_SSH_HOST=127.0.0.1',
      'SERVICE_SSH_PORT=0',
      'SERVICE_LOG_LEVEL=warn',
    ];
    const script = [
      `mount --rbind /dev ${rootfs}/dev`,
      `mount -t proc proc ${rootfs}/proc`,
      `mount -t tmpfs tmpfs ${rootfs}/tmp`,
      `cd ${rootfs}/data`,
      `exec chroot --userspec=kiln:kiln ${rootfs} env -i ${env.join(' ')} /usr/local/bin/kiln serve`,
    ].join(' && ');
    server = spawn('unshare', ['--mount', '--pid', '--fork', '--kill-child', 'sh', '-c', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    server.stdout?.on('data', (chunk) => {
      log += chunk;
    });
    server.stderr?.on('data', (chunk) => {
      log += chunk;
    });
    let version = '';
    const answered = await eventually(async () => {
      const answer = await fetch(`http://127.0.0.1:${port}/api/v1/version`).catch(() => null);
      if (answer?.ok) version = ((await answer.json()) as { version: string }).version;
      return answer?.ok === true;
    }, 60_000);
    expect(answered, log).toBe(true);
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    // SSH starts after HTTP answers, once its host keys are made on this first start.
    const sshListening = await eventually(
      async () => /^ssh listening on 127\.0\.0\.1:\d+$/m.test(log),
      60_000,
    );
    expect(sshListening, log).toBe(true);
    // The key Kiln made on its first start belongs to the image's user, not to root.
    const uid = Number(
      /^kiln:x:(\d+):/m.exec(readFileSync(join(rootfs, 'etc', 'passwd'), 'utf8'))?.[1],
    );
    expect(statSync(join(rootfs, 'data', 'secret-key')).uid).toBe(uid);
  });
});

/** SIGKILLs every process whose root directory is `dir` (a chroot), as /proc shows it. */
function stopProcessesRootedIn(dir: string): void {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/root`) === dir) process.kill(Number(entry), 'SIGKILL');
    } catch {
      // Gone already, or not ours to read.
    }
  }
}
