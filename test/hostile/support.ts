/**
 * The hostile-input suites' harness: one Kiln process with a little real data, raw HTTP/1.1
 * over a socket (so paths, header values and bodies go out byte for byte, invalid UTF-8 and
 * all), fast-check arbitraries of adversarial input, and the checks made after every run: no
 * 5xx, the process alive and answering `/healthz`, its memory bounded.
 */
import { connect } from 'node:net';
import fc from 'fast-check';
import { expect } from 'vitest';
import { buildServer } from '../../src/http/server.ts';
import { type RegisteredRoute, registeredRoutes } from '../authz/routes.ts';
import { createDeployment, type Deployment, type KilnProcess } from '../replicas/kiln-process.ts';
import { signIn } from '../replicas/support.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import { useForSuite } from '../support/world.ts';

export type HostileWorld = {
  readonly deployment: Deployment;
  readonly kiln: KilnProcess;
  readonly routes: RegisteredRoute[];
  readonly owner: string;
  readonly repo: string;
  readonly token: string;
  /** `Cookie` header of a signed-in session with its CSRF cookie; `csrf` is the form value. */
  readonly session: { readonly cookie: string; readonly csrf: string };
  /** RSS of the server after seeding and a warm-up, in bytes. */
  readonly baselineRss: number;
  dispose(): Promise<void>;
};

/** Largest growth of the server's RSS over a suite that is still "bounded". */
export const RSS_GROWTH_LIMIT = 256 * 2 ** 20;

/**
 * A server with a user, a token, a public repository with a commit, an open pull and a release,
 * so that routes reach past their not-found checks. `env` adds settings.
 */
export async function hostileWorld(env: Record<string, string> = {}): Promise<HostileWorld> {
  const deployment = await createDeployment({
    SERVICE_PROTECT_ENABLED: 'false',
    SERVICE_SECRET_KEY: 'hostile input suite secret key',
    ...env,
  });
  const { app, make } = await deployment.open();
  const server = await buildServer(app);
  await server.ready();
  const routes = registeredRoutes(server);
  await server.close();
  const { user, token, password } = await make.userWithToken();
  const kiln = await deployment.start();
  const git = await GitClient.create();
  try {
    const headers = { authorization: `token ${token}`, 'content-type': 'application/json' };
    const post = (path: string, body: unknown) =>
      fetch(`${kiln.url}/api/v1${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    expect((await post('/user/repos', { name: 'target', auto_init: true })).status).toBe(201);
    const url = repoUrl(kiln.url, user.handle, 'target', { token, as: 'username' });
    const work = await git.clone(url);
    await git.ok(['checkout', '-q', '-b', 'topic'], { cwd: work });
    await git.commit(work, { 'topic.txt': 'topic\n' }, 'topic');
    await git.ok(['push', '-q', url, 'topic'], { cwd: work });
    const base = `/repos/${user.handle}/target`;
    const pull = await post(`${base}/pulls`, { title: 't', head: 'topic', base: 'main', body: '' });
    expect(pull.status).toBe(201);
    const release = await post(`${base}/releases`, { tag_name: 'v1', target_commitish: 'main' });
    expect(release.status).toBe(201);
  } finally {
    await git.dispose();
  }
  const browser = await signIn(kiln.url, user.handle, password);
  const csrf = browser.cookies.get('kiln_csrf') ?? '';
  const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  for (let i = 0; i < 20; i++) await send(kiln, { method: 'GET', path: '/healthz' });
  return {
    deployment,
    kiln,
    routes,
    owner: user.handle,
    repo: 'target',
    token,
    session: { cookie, csrf },
    baselineRss: kiln.rssBytes(),
    dispose: () => deployment.dispose(),
  };
}

export type RawRequest = {
  readonly method: string;
  /** Sent exactly as given: percent-escapes stay escapes, raw bytes stay bytes. */
  readonly path: string | Buffer;
  readonly headers?: ReadonlyArray<readonly [string, string | Buffer]>;
  readonly body?: Buffer;
  /** Leave Content-Length out (for bodies the test frames itself, or none). */
  readonly noLength?: boolean;
};

/**
 * One HTTP/1.1 request on a fresh connection. Resolves to the response status, or 0 when the
 * server closed the connection without answering (what Node's parser does with some garbage).
 * Rejects only when nothing at all happens within `timeoutMs`.
 */
export function send(kiln: KilnProcess, request: RawRequest, timeoutMs = 20_000): Promise<number> {
  const { port } = new URL(kiln.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let head = Buffer.alloc(0);
    let settled = false;
    const done = (status: number | Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (status instanceof Error) reject(status);
      else resolve(status);
    };
    const timer = setTimeout(
      () => done(new Error(`no answer within ${timeoutMs} ms to ${request.method}`)),
      timeoutMs,
    );
    socket.on('data', (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]).subarray(0, 64);
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(head.toString('latin1'));
      if (match?.[1]) done(Number(match[1]));
    });
    socket.on('error', () => done(0));
    socket.on('close', () => done(0));
    const lines: Buffer[] = [
      Buffer.concat([
        Buffer.from(`${request.method} `, 'latin1'),
        Buffer.isBuffer(request.path) ? request.path : Buffer.from(request.path, 'latin1'),
        Buffer.from(' HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n', 'latin1'),
      ]),
    ];
    for (const [name, value] of request.headers ?? []) {
      lines.push(Buffer.concat([Buffer.from(`${name}: `, 'latin1'), Buffer.from(value), CRLF]));
    }
    const body = request.body ?? Buffer.alloc(0);
    if (!request.noLength) lines.push(Buffer.from(`Content-Length: ${body.length}\r\n`));
    lines.push(CRLF, body);
    socket.write(Buffer.concat(lines), () => {});
  });
}

const CRLF = Buffer.from('\r\n');

/**
 * Statuses fuzzed requests may get: any 1xx–4xx, or a closed connection; never a 5xx. The runner
 * protocol alone may answer 501, its documented status for Connect's `unimplemented` (methods not
 * served yet, compressions it does not speak).
 */
export function expectNoServerError(status: number, what: string, allowed: number[] = []): void {
  expect(status >= 500 && !allowed.includes(status), `${what} answered ${status}`).toBe(false);
}

/** The process is alive, answers `/healthz`, and its memory grew by less than the limit. */
export async function expectHealthy(world: HostileWorld): Promise<void> {
  expect(world.kiln.child.exitCode, world.kiln.stderr()).toBeNull();
  const response = await fetch(`${world.kiln.url}/healthz`);
  expect(response.status).toBe(200);
  const growth = world.kiln.rssBytes() - world.baselineRss;
  expect(growth, `RSS grew by ${(growth / 2 ** 20).toFixed(0)} MiB`).toBeLessThan(RSS_GROWTH_LIMIT);
  expect(world.kiln.stderr()).not.toMatch(/unhandled error|internal server error/i);
}

const percentBytes = (bytes: Uint8Array) =>
  [...bytes].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');

/** A path segment as an attacker would write it in a URL. */
export const segment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '..',
    '.',
    '%2e%2e',
    '%2F',
    '%2f..%2f..',
    '%00',
    '%ff%fe',
    '%c3%28',
    '%e2%82',
    '-rf',
    '--upload-pack=touch%20x',
    'HEAD',
    '.git',
    '0',
    '-1',
    '99999999999999999999',
    '1e309',
    'NaN',
    'a'.repeat(2000),
    '%'.repeat(3),
    '%zz',
    '~',
    '@',
  ),
  fc.string({ maxLength: 40 }).map(encodeURIComponent),
  fc.uint8Array({ minLength: 1, maxLength: 24 }).map(percentBytes),
  fc.integer().map(String),
);

/** A query string: random keys and values, the paging keys with nonsense among them. */
export const query: fc.Arbitrary<string> = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom('page', 'limit', 'state', 'q', 'sort', 'redirect', 'service', 'type'),
        fc.string({ maxLength: 10 }).map(encodeURIComponent),
      ),
      segment,
    ),
    { maxLength: 5 },
  )
  .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}` : ''));

/** Header values: garbage credentials and cookies, odd encodings, very long values. */
export const headers: fc.Arbitrary<[string, string | Buffer][]> = fc.array(
  fc.tuple(
    fc.constantFrom(
      'authorization',
      'cookie',
      'content-encoding',
      'accept-encoding',
      'git-protocol',
      'x-forwarded-for',
      'x-forwarded-proto',
      'x-runner-uuid',
      'x-runner-token',
      'connect-protocol-version',
      'connect-timeout-ms',
      'if-none-match',
      'range',
      'accept',
    ),
    fc.oneof(
      fc.constantFrom(
        'token ',
        'Bearer',
        'Basic !!!',
        'Basic Og==',
        `Basic ${Buffer.from(':').toString('base64')}`,
        'gzip',
        'deflate, br',
        'version=2',
        'version=999999999',
        'kiln_session=x; kiln_csrf=y; service_human=1.abc',
        `service_human=99999999999.${'f'.repeat(64)}`,
        'bytes=0-,1-2,-5',
        '-1',
        '1e400',
      ),
      fc.string({ maxLength: 60 }).map((s) => s.replace(/[\r\n\0]/g, ' ')),
      fc.integer({ min: 1000, max: 12_000 }).map((n) => 'x'.repeat(n)),
      fc
        .uint8Array({ maxLength: 40 })
        .map((bytes) => Buffer.from(bytes.map((b) => (b < 32 ? b + 128 : b)))),
    ),
  ),
  { maxLength: 4 },
);

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const nestedObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** JSON request bodies a client should never send: wrong types, truncations, nesting, bytes. */
export function jsonBody(fields: readonly string[]): fc.Arbitrary<Buffer> {
  const value = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.constantFrom(null, true, -1, 1e308, '', 'x'.repeat(300_000), [], {}),
  );
  return fc.oneof(
    fc.dictionary(fc.constantFrom(...fields, '__proto__', 'constructor'), value).map(json),
    fc.jsonValue({ maxDepth: 4 }).map(json),
    fc.integer({ min: 1000, max: 200_000 }).map((n) => Buffer.from(nested(n))),
    fc.integer({ min: 1000, max: 100_000 }).map((n) => Buffer.from(nestedObject(n))),
    fc.tuple(fc.jsonValue({ maxDepth: 3 }), fc.nat()).map(([v, cut]) => {
      const text = JSON.stringify(v) ?? 'null';
      return Buffer.from(text.slice(0, cut % Math.max(1, text.length)));
    }),
    fc
      .uint8Array({ maxLength: 200 })
      .map((bytes) =>
        Buffer.concat([Buffer.from('{"title":"'), Buffer.from(bytes), Buffer.from('"}')]),
      ),
    fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
    fc.constant(Buffer.from('{"title": "\\ud800", "body": "\\u0000"}')),
  );
}

function json(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value) ?? 'null');
}

/** Content types to pair with any body, right and wrong. */
export const contentType: fc.Arbitrary<string> = fc.constantFrom(
  'application/json',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/proto',
  'application/x-git-upload-pack-request',
  'application/octet-stream',
  '',
  ';;;',
  'application/json'.repeat(200),
);

/** Methods, common and odd. */
export const method: fc.Arbitrary<string> = fc.constantFrom(
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
  'TRACE',
  'PROPFIND',
  'QUERY',
  'SEARCH',
  'CONNECT',
  'BREW',
);

/**
 * Fills a route's parameters: a real value most of the time (so the request gets past the
 * lookups into the handler), an adversarial segment otherwise.
 */
export function fillRoute(url: string, real: Record<string, string>): fc.Arbitrary<string> {
  const names = [...url.matchAll(/:(\w+)|\*/g)].map((m) => m[1] ?? '*');
  return fc
    .tuple(
      ...names.map((name) =>
        fc.oneof(
          { weight: 3, arbitrary: fc.constant(real[name] ?? 'x') },
          { weight: 2, arbitrary: segment },
        ),
      ),
    )
    .map((values) => {
      let index = 0;
      return url.replace(/:(\w+)|\*/g, () => values[index++] ?? '');
    });
}

/** fast-check settings of these suites: bounded, and reproducible from the printed seed. */
export function runs<T>(
  numRuns: number,
  examples: T[] = [],
): Pick<
  fc.Parameters<[T]>,
  'numRuns' | 'examples' | 'interruptAfterTimeLimit' | 'markInterruptAsFailure' | 'endOnFailure'
> {
  return {
    // KILN_HOSTILE_RUNS=5000 fuzzes deeper by hand; the suite's own counts keep it near 2 minutes.
    numRuns: Number(process.env.KILN_HOSTILE_RUNS) || numRuns,
    // Inputs that once found a bug: always tried first, whatever the seed.
    examples: examples.map((example) => [example] as [T]),
    interruptAfterTimeLimit: process.env.KILN_HOSTILE_RUNS ? 600_000 : 25_000,
    markInterruptAsFailure: false,
    endOnFailure: true,
  };
}

/**
 * The suite's hostile world (see `hostileWorld`), handed to `ready` once seeded and disposed
 * after the last test. Seeding a deployment is slow, so the start may take `timeoutMs`.
 */
export function useHostileWorld(
  ready: (world: HostileWorld) => void | Promise<void>,
  env: Record<string, string> = {},
  timeoutMs = 90_000,
): void {
  useForSuite(
    () => hostileWorld(env),
    (world) => world.dispose(),
    ready,
    timeoutMs,
  );
}
