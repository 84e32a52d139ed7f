import {
  booleanField,
  durationField,
  enumField,
  integerField,
  listField,
  optionalStringField,
  stringField,
  urlField,
} from './fields.ts';

const HANDLE = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const TRUSTED_PROXY = /^[0-9A-Fa-f:.]+(\/\d{1,3})?$/;
const SEMVER = /^\d+\.\d+\.\d+$/;
/** A host name, optionally with a port (`example.com`, `git.example.com:8443`). */
const HOST = /^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:\d{1,5})?$/;

/**
 * Every configuration key Kiln reads, in documentation order. A key `service.a.b-c` is set in the
 * TOML file as `service.a.b-c = …` (or in a `[service.a]` table) and in the environment as
 * `SERVICE_A_B_C`; the environment wins. docs/configuration.md is generated from this table.
 */
export const configSchema = {
  'service.http.host': stringField({
    default: '127.0.0.1',
    form: 'a host name or IP address',
    description: 'Address the HTTP server listens on.',
  }),
  'service.http.port': integerField({
    default: 3000,
    min: 0,
    max: 65535,
    description: 'TCP port of the HTTP server; `0` picks a free port.',
  }),
  'service.http.body-limit': integerField({
    default: 4 * 1024 * 1024,
    min: 1024,
    max: 1024 * 1024 * 1024,
    description:
      'Largest JSON or form request body in bytes (git pushes stream and are not limited by it).',
  }),
  'service.http.request-timeout': durationField({
    default: 3_600_000,
    minMs: 1000,
    description:
      'Longest time a client may take to send one whole request (a git push included); slower clients are cut off.',
  }),
  'service.http.headers-timeout': durationField({
    default: 30_000,
    minMs: 1000,
    description: 'Longest time a client may take to send the request headers.',
  }),
  'service.http.keep-alive-timeout': durationField({
    default: 65_000,
    minMs: 1000,
    description: 'How long an idle keep-alive connection stays open.',
  }),
  'service.http.idle-timeout': durationField({
    default: 600_000,
    minMs: 1000,
    description:
      'How long a client may leave a connection silent in the middle of a request or its answer (it stops reading a download, or stops sending a body Kiln is ready to read) before it is closed; also the longest a drain on SIGTERM waits for such a client. Silence on the server’s side (git checking a large push) is not counted.',
  }),
  'service.ssh.enabled': booleanField({
    default: true,
    description:
      'Whether Kiln serves git over SSH itself (clone URLs `ssh://git@HOST:PORT/owner/name.git`), beside HTTP.',
  }),
  'service.ssh.host': optionalStringField({
    form: 'a host name or IP address',
    description: 'Address the SSH server listens on. Unset: the HTTP host.',
  }),
  'service.ssh.port': integerField({
    default: 2222,
    min: 0,
    max: 65535,
    description: 'TCP port of the SSH server; `0` picks a free port.',
  }),
  'service.ssh.public-host': optionalStringField({
    form: 'a host name',
    validate: (value) => HOST.test(value) && !value.includes(':'),
    description:
      'Host shown in SSH clone URLs. Unset: the host of the base URL (or of the request).',
  }),
  'service.ssh.public-port': integerField({
    default: 0,
    min: 0,
    max: 65535,
    description:
      'Port shown in SSH clone URLs (a proxy or a forwarded `22` in front of Kiln). `0`: the port the server listens on.',
  }),
  'service.ssh.max-sessions': integerField({
    default: 256,
    min: 1,
    max: 100_000,
    description:
      'SSH connections served at once; more are refused until one ends. Each clone or push is one.',
  }),
  'service.ssh.idle-timeout': durationField({
    default: 600_000,
    minMs: 1000,
    description:
      'How long an SSH connection may stay silent before it is closed (a git command that is still sending or receiving is never silent).',
  }),
  'service.ssh.login-timeout': durationField({
    default: 30_000,
    minMs: 1000,
    maxMs: 600_000,
    description: 'How long a client has to authenticate after it connects.',
  }),
  'service.base-url': urlField({
    protocols: ['http:', 'https:'],
    description:
      'External base URL (for example `https://git.example.com`). Unset: derived from each request through trusted proxies; federation, which needs an address that never changes, then uses `http://HOST:PORT` when `service.http.host` is a loopback address (for this machine only; `serve` says so in one line, and federation may then reach loopback peers), and stays off otherwise.',
  }),
  'service.trust-proxy': listField({
    default: [],
    itemForm: 'IP addresses or CIDR ranges',
    validate: (item) => TRUSTED_PROXY.test(item),
    description:
      'Reverse proxies whose `X-Forwarded-For`, `X-Forwarded-Proto` and `X-Forwarded-Host` headers are believed.',
  }),
  'service.data-dir': stringField({
    default: './data',
    form: 'a directory path',
    description: 'Where repositories (and the SQLite database) live.',
  }),
  'service.database-url': optionalStringField({
    secret: true,
    form: 'a `postgres://` or `postgresql://` URL',
    validate: (value) => /^postgres(ql)?:\/\//.test(value) && URL.canParse(value),
    description: 'Unset: SQLite in the data dir. A `postgres://…` URL: PostgreSQL.',
  }),
  'service.database-listen-url': optionalStringField({
    secret: true,
    form: 'a `postgres://` or `postgresql://` URL',
    validate: (value) => /^postgres(ql)?:\/\//.test(value) && URL.canParse(value),
    description:
      'PostgreSQL: where each replica keeps one connection that listens for the others’ writes, so that it may answer from memory. Unset: the database URL. Set it to a direct connection when the database URL goes through a pooler in transaction mode (PgBouncer), which does not pass notifications on.',
  }),
  'service.admin-handles': listField({
    default: [],
    itemForm: 'user handles',
    validate: (item) => HANDLE.test(item),
    description:
      'Users who are always administrators; administrators may make others so at `/admin/users`, but never unmake these. Empty, with nobody made an administrator there: every `/admin` page is closed.',
  }),
  'service.secret-key': optionalStringField({
    secret: true,
    form: 'a secret of at least 16 characters',
    validate: (value) => value.length >= 16,
    description:
      'Key that encrypts CI secrets, webhook secrets and federation keys at rest and signs runtime URLs. Unset: `serve`, `migrate` and `restore` make one (32 random bytes) in `<data-dir>/secret-key`, mode 0600, and every command reads it from there; replicas must then share that file. `kiln doctor` reports a key that no longer opens the stored secrets.',
  }),
  'service.forge-api.version': stringField({
    default: '1.13.0',
    form: 'a version `MAJOR.MINOR.PATCH`',
    validate: (value) => SEMVER.test(value),
    description:
      'Version reported by `GET /api/v1/version`. Clients gate features on it; keep it below `1.14.0`.',
  }),
  'service.signup.enabled': booleanField({
    default: true,
    description:
      'Whether anyone may create an account at `/signup`. Off: the page says sign-up is closed and a posted form is refused with 403; accounts are made with `user create`.',
  }),
  'service.auth.open-registration': booleanField({
    default: true,
    description:
      'The earlier name of `service.signup.enabled`, still honoured: false here closes sign-up too, so an installation that had closed it stays closed.',
  }),
  'service.auth.session-lifetime': durationField({
    default: 30 * 86_400_000,
    minMs: 60_000,
    description: 'How long a web sign-in lasts.',
  }),
  'service.auth.login-account-limit': integerField({
    default: 5,
    min: 1,
    max: 1000,
    description:
      'Failed sign-ins one account name (handle or email as typed) may have within `service.auth.login-window` before sign-in under that name is locked.',
  }),
  'service.auth.login-address-limit': integerField({
    default: 20,
    min: 1,
    max: 100_000,
    description:
      'Failed sign-ins (and refused sign-ups, and sign-ups with an email address another account holds) one client address may have within `service.auth.login-window` before it is locked.',
  }),
  'service.auth.login-window': durationField({
    default: 15 * 60_000,
    minMs: 1000,
    description: 'How long a failed sign-in counts; also the longest lock.',
  }),
  'service.auth.login-lock': durationField({
    default: 60_000,
    minMs: 1000,
    description:
      'The first lock once a limit is reached; each further failure doubles it, up to `service.auth.login-window`.',
  }),
  'service.log.level': enumField({
    values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    description: 'Log level; unset means `info`.',
  }),
  'service.protect.enabled': booleanField({
    default: true,
    description: 'Meter the expensive pages (commits, history, pull requests, search).',
  }),
  'service.protect.anonymous-budget': integerField({
    default: 30,
    min: 1,
    max: 1_000_000,
    description: 'Metered requests per window for one anonymous client IP.',
  }),
  'service.protect.user-budget': integerField({
    default: 120,
    min: 1,
    max: 1_000_000,
    description: 'Metered requests per window for one signed-in user or one challenge pass.',
  }),
  'service.protect.window': durationField({
    default: 60_000,
    minMs: 1000,
    description: 'Length of the fixed metering window.',
  }),
  'service.protect.captcha-provider': enumField({
    values: ['hcaptcha', 'recaptcha', 'turnstile'],
    description:
      'Captcha provider of the challenge page; the challenge is on only when provider, site key and secret key are all set.',
  }),
  'service.protect.captcha-site-key': optionalStringField({
    description: 'Public site key of the captcha provider.',
  }),
  'service.protect.captcha-secret-key': optionalStringField({
    secret: true,
    description: 'Secret key of the captcha provider; also keys the challenge pass cookie.',
  }),
  'service.protect.captcha-verify-url': urlField({
    protocols: ['http:', 'https:'],
    description: "Verification endpoint. Unset: the provider's own.",
  }),
  'service.protect.signup-captcha': booleanField({
    default: true,
    description:
      'Whether `/signup` asks for the captcha. Has effect only when the captcha is configured.',
  }),
  'service.protect.login-captcha-after': integerField({
    default: 3,
    min: 0,
    max: 1000,
    description:
      'Failed sign-ins (per account name or client address) after which `/login` also asks for the captcha, when it is configured; `0` always asks.',
  }),
  'service.protect.pass-lifetime': durationField({
    default: 86_400_000,
    minMs: 60_000,
    description: 'How long a solved challenge (the `service_human` cookie) stays valid.',
  }),
  'service.metrics.token': optionalStringField({
    secret: true,
    form: 'a secret of at least 16 characters',
    validate: (value) => value.length >= 16,
    description:
      'Bearer token that opens `/metrics` to any client (`Authorization: Bearer …`). Unset: only loopback clients, if allowed.',
  }),
  'service.metrics.allow-loopback': booleanField({
    default: true,
    description:
      'Whether clients on the loopback interface may read `/metrics` without the token (behind a trusted proxy, the forwarded client counts).',
  }),
  'service.archive.max-concurrent': integerField({
    default: 4,
    min: 1,
    max: 1000,
    description:
      'Source archives (`.zip`, `.tar.gz`) one process builds at once; archives are not metered, so this bounds their cost.',
  }),
  'service.archive.max-queued': integerField({
    default: 8,
    min: 0,
    max: 10_000,
    description:
      'Archive requests that may wait for a free build; beyond that they are answered `503` with `Retry-After` at once.',
  }),
  'service.archive.queue-timeout': durationField({
    default: 10_000,
    minMs: 1000,
    maxMs: 600_000,
    description:
      'Longest wait for a free archive build before the answer is `503` with `Retry-After`.',
  }),
  'service.raw.max-concurrent': integerField({
    default: 16,
    min: 1,
    max: 1000,
    description:
      'Raw files over 1 MiB one process sends at once, each streamed by a git of its own for as long as its client reads; the raw view is not metered, so this bounds its cost.',
  }),
  'service.raw.max-queued': integerField({
    default: 32,
    min: 0,
    max: 10_000,
    description:
      'Requests for large raw files that may wait for a free stream; beyond that they are answered `503` with `Retry-After` at once.',
  }),
  'service.raw.queue-timeout': durationField({
    default: 10_000,
    minMs: 1000,
    maxMs: 600_000,
    description:
      'Longest wait for a free stream of a large raw file before the answer is `503` with `Retry-After`.',
  }),
  'service.render.workers': integerField({
    default: 2,
    min: 1,
    max: 64,
    description:
      'Worker threads that render markdown and highlight code, started on first use. No page renders user content on the main thread.',
  }),
  'service.render.timeout': durationField({
    default: 2000,
    minMs: 50,
    maxMs: 600_000,
    description:
      'Longest one render may run; a worker that overruns is replaced and the page shows the content as plain text with a notice.',
  }),
  'service.render.max-bytes': integerField({
    default: 512 * 1024,
    min: 1024,
    max: 64 * 1024 * 1024,
    description:
      'Largest markdown document or code file (bytes) that is rendered; larger ones are shown as plain text with a notice, and so is content whose markup would exceed four times this many characters.',
  }),
  'service.render.queue': integerField({
    default: 64,
    min: 1,
    max: 100_000,
    description:
      'Renders that may wait for a free worker; beyond it, pages that need one answer 503 with `Retry-After`.',
  }),
  'service.render.cache-size': integerField({
    default: 32 * 1024 * 1024,
    min: 0,
    max: 4 * 1024 * 1024 * 1024,
    description:
      'Characters of rendered output kept in memory, by content (blob id or hash); `0` keeps none.',
  }),
  'service.render.max-concurrent-pages': integerField({
    default: 2,
    min: 0,
    max: 10_000,
    description:
      'Web pages one process builds at once (`0`: no limit); others wait their turn (a page waiting on git past 50 ms gives its turn back), so a flood of heavy pages leaves the process free for the API, git and health checks, at the cost of some page throughput when pages alone saturate it (see docs/performance.md, render-load).',
  }),
  'service.render.max-queued-pages': integerField({
    default: 512,
    min: 0,
    max: 100_000,
    description:
      'Page requests that may wait for their turn; beyond that they are answered `503` with `Retry-After` at once.',
  }),
  'service.render.page-queue-timeout': durationField({
    default: 10_000,
    minMs: 1000,
    maxMs: 600_000,
    description:
      'Longest wait for a turn to build a page before the answer is `503` with `Retry-After`.',
  }),
  'service.ci.task-timeout': durationField({
    default: 3_600_000,
    minMs: 1000,
    description: 'A claimed CI task must finish within this time or it is failed.',
  }),
  'service.ci.zombie-reclaim-interval': durationField({
    default: 60_000,
    minMs: 1000,
    description:
      'How often tasks running past their deadline are failed and their runners marked offline.',
  }),
  'service.federation.enabled': booleanField({
    default: true,
    description:
      'Publish public users and repositories to the fediverse (ActivityPub / ForgeFed). Needs `service.base-url` (derived on a loopback address, see there) and a secret key (made when unset); without a base URL federation stays off. Off: every federation route answers 404.',
  }),
  'service.federation.allowed-hosts': listField({
    default: [],
    itemForm: 'host names',
    validate: (item) => HOST.test(item),
    description: 'Only these servers may federate with Kiln. Empty: every server not blocked.',
  }),
  'service.federation.blocked-hosts': listField({
    default: [],
    itemForm: 'host names',
    validate: (item) => HOST.test(item),
    description: 'Servers whose activities are refused (403) and to which nothing is delivered.',
  }),
  'service.federation.allow-private-addresses': booleanField({
    default: false,
    description:
      'Let federation fetch and deliver to loopback and private network addresses. For tests only: on a public server it opens server-side request forgery.',
  }),
  'service.federation.require-signed-fetch': booleanField({
    default: false,
    description:
      'Serve actors, outboxes, followers and activities only to requests with a valid HTTP signature (authorized fetch, as in Mastodon’s secure mode). The instance actor, WebFinger and NodeInfo stay public.',
  }),
  'service.federation.give-up-after': durationField({
    default: 3 * 86_400_000,
    minMs: 1000,
    description:
      'A server that has failed every delivery for this long is given up on: its queued deliveries are dropped until it answers again.',
  }),
  'service.federation.max-fork-size': integerField({
    default: 1024 ** 3,
    min: 0,
    max: 2 ** 50,
    description:
      'Largest repository, in bytes on disk, copied from another server when a user forks one of its repositories; 0 for no limit. A copy that grows past it is stopped, the new repository removed, and the user told (`413`).',
  }),
  'service.federation.inbox-limit-per-actor': integerField({
    default: 120,
    min: 1,
    max: 1_000_000,
    description:
      'Activities one remote actor may send to the inboxes per minute (a token bucket of this size, refilled evenly over the minute). Past it the inbox answers `429` with `Retry-After`.',
  }),
  'service.federation.inbox-limit-per-host': integerField({
    default: 1200,
    min: 1,
    max: 10_000_000,
    description:
      'Activities all actors of one remote server together may send to the inboxes per minute (a token bucket like the one per actor). Past it the inbox answers `429` with `Retry-After`.',
  }),
  'service.ci.heartbeat-timeout': durationField({
    default: 600_000,
    minMs: 1000,
    description:
      'A running task whose runner has not reported (UpdateTask) for this long is failed.',
  }),
  'service.ci.abandoned-timeout': durationField({
    default: 86_400_000,
    minMs: 1000,
    description:
      'A job still waiting for a runner or for the jobs it needs after this long is cancelled.',
  }),
  'service.ci.log-retention': durationField({
    default: 90 * 86_400_000,
    minMs: 60_000,
    description: 'How long the logs of finished CI tasks are kept.',
  }),
  'service.ci.log-max-bytes-per-task': integerField({
    default: 64 * 1024 * 1024,
    min: 64 * 1024,
    max: 2 ** 40,
    description:
      'Largest stored log of one CI task, in bytes (time stamps included). Past it the log ends with a line saying it was truncated, and the rest of the output is acknowledged to the runner but not stored.',
  }),
  'service.ci.log-max-rows-per-task': integerField({
    default: 1_000_000,
    min: 1000,
    max: 1_000_000_000,
    description: 'Most lines stored for one CI task; past it the log is truncated the same way.',
  }),
  'service.ci.log-max-bytes-per-repo': integerField({
    default: 4 * 1024 * 1024 * 1024,
    min: 1024 * 1024,
    max: 2 ** 50,
    description:
      'Largest total of the CI logs one repository keeps, in bytes. Once reached, the logs of its running tasks are truncated and new tasks store only that line, until `service.ci.log-retention` removes old logs; nothing already stored is deleted to make room.',
  }),
  'service.ci.cache-size': integerField({
    default: 10 * 1024 * 1024 * 1024,
    min: 1024 * 1024,
    max: 2 ** 50,
    description:
      'Largest total of one repository’s CI cache entries (`actions/cache`), in bytes. Saving an entry past it removes the entries used least recently; an entry larger than this is refused.',
  }),
  'service.ci.artifact-retention': durationField({
    default: 90 * 86_400_000,
    minMs: 86_400_000,
    description:
      'Longest time a CI artifact is kept. A workflow’s `retention-days` may ask for less, never more; expired artifacts are removed by the periodic CI sweep.',
  }),
  'service.ci.artifact-max-bytes-per-repo': integerField({
    default: 5 * 1024 * 1024 * 1024,
    min: 1024 * 1024,
    max: 2 ** 50,
    description:
      'Largest total of the unexpired CI artifacts one repository keeps, in bytes. An upload that would pass it is refused with 413 until artifacts expire or are deleted.',
  }),
  'service.ci.actions-url': urlField({
    protocols: ['http:', 'https:'],
    description:
      'Where runners fetch actions named without a host (`uses: actions/checkout@v4`). Unset: this instance’s actions source, `{base URL}/-/actions`, which serves only the repositories of `service.ci.action-owners`.',
  }),
  'service.ci.action-owners': listField({
    default: ['actions'],
    itemForm: 'user or organisation handles',
    validate: (item) => HANDLE.test(item),
    description:
      'The owners whose repositories are this instance’s actions source (`{base URL}/-/actions/{owner}/{repo}`, what a runner fetches for `uses: owner/repo@ref` while `service.ci.actions-url` is unset). Only administrators create them (sign-up and organisation creation refuse these names, in any letter case) and only administrators write in their repositories.',
  }),
  'service.webhook.allowed-hosts': listField({
    default: ['external'],
    itemForm: '`loopback`, `private`, `external`, `*`, host name globs or CIDRs',
    validate: (item) => /^[A-Za-z0-9*?.:/[\]-]+$/.test(item),
    description:
      "Where webhooks may deliver, as Gitea's `webhook.ALLOWED_HOST_LIST`: `loopback` (127.0.0.0/8, ::1), `private` (RFC 1918, unique local, link-local), `external` (every other address), `*` (all), a host name glob (`*.example.com`) or a CIDR (`10.1.0.0/16`). Checked on the address actually connected to, so a name that resolves elsewhere later is still refused.",
  }),
  'service.webhook.timeout': durationField({
    default: 5000,
    minMs: 100,
    description: 'How long one delivery may take, connection to last byte of the answer.',
  }),
  'service.webhook.max-attempts': integerField({
    default: 5,
    min: 1,
    max: 100,
    description:
      'Attempts of one delivery before it is recorded as failed. Retries follow 5xx answers and network errors, with doubling back-off (10 s, 20 s, 40 s …).',
  }),
  'service.webhook.retry-delay': durationField({
    default: 10_000,
    minMs: 0,
    description:
      'Wait before the first retry of a failed delivery; each further retry waits twice as long.',
  }),
  'service.webhook.disable-after': integerField({
    default: 25,
    min: 0,
    max: 100_000,
    description:
      'A hook whose deliveries failed this many times in a row is switched off (and marked with why). 0: never.',
  }),
  'service.webhook.retention': durationField({
    default: 7 * 86_400_000,
    minMs: 60_000,
    description: 'How long delivery records (requests and answers) are kept.',
  }),
  'service.webhook.concurrency': integerField({
    default: 16,
    min: 1,
    max: 256,
    description: 'Deliveries one process sends at once.',
  }),
  'service.lfs.enabled': booleanField({
    default: true,
    description:
      'Whether repositories serve Git LFS (`{repository}.git/info/lfs`): large files pushed by `git lfs` are kept under the data directory, in `lfs/`. Off: the LFS API answers 404 and file pages show pointers as they are.',
  }),
  'service.lfs.max-file-size': integerField({
    default: 0,
    min: 0,
    max: 2 ** 50,
    description:
      'Largest Git LFS object accepted, in bytes; 0 for no limit. A larger object is refused in the batch answer (error 422 naming the limit), before any byte is sent.',
  }),
  'service.lfs.ssh-transfer': booleanField({
    default: true,
    description:
      'Whether the SSH server serves `git-lfs-transfer`, Git LFS over SSH alone (objects and locks on the SSH connection). Off: git-lfs falls back to `git-lfs-authenticate` and moves objects over HTTP, at the base URL (where a proxy in front of Kiln may serve or cache them).',
  }),
  'service.housekeeping.enabled': booleanField({
    default: true,
    description:
      'Whether repositories are repacked in the background after pushes (multi-pack index, bitmaps, commit-graph, pruning).',
  }),
  'service.housekeeping.concurrency': integerField({
    default: 1,
    min: 1,
    max: 64,
    description:
      'Repositories one process maintains at once; further ones wait their turn. Replicas coordinate per repository through the database.',
  }),
  'service.housekeeping.pack-threshold': integerField({
    default: 24,
    min: 1,
    max: 100_000,
    description:
      'A push leads to housekeeping once the repository holds more packs than this (counted from the pack directory, without running git).',
  }),
  'service.housekeeping.loose-threshold': integerField({
    default: 100,
    min: 1,
    max: 10_000_000,
    description:
      'A push leads to housekeeping once the repository holds more loose objects than this.',
  }),
  'service.housekeeping.prune-after': durationField({
    default: 14 * 86_400_000,
    minMs: 1000,
    description:
      'Grace period of unreachable objects: only those untouched for this long are deleted (git `gc.pruneExpire`). Repositories that lend objects to forks never prune.',
  }),
  'service.housekeeping.prune-interval': durationField({
    default: 86_400_000,
    minMs: 0,
    description:
      'Least time between two full repacks of one repository (the ones that prune); the runs between are incremental.',
  }),
} as const;

export type ConfigSchema = typeof configSchema;
export type ConfigKey = keyof ConfigSchema;

/** `service.ci.task-timeout` → `SERVICE_CI_TASK_TIMEOUT`. */
export function envName(key: string): string {
  return key.toUpperCase().replace(/[.-]/g, '_');
}
