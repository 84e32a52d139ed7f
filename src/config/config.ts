import type { ConfigKey, ConfigSchema } from './schema.ts';

export type ConfigValues = {
  readonly [K in ConfigKey]: ConfigSchema[K]['defaultValue'];
};

export type CaptchaProvider = 'hcaptcha' | 'recaptcha' | 'turnstile';

/** The one typed, frozen configuration object handed down from the composition root. */
export type Config = {
  readonly http: {
    readonly host: string;
    readonly port: number;
    readonly bodyLimitBytes: number;
    readonly requestTimeoutMs: number;
    readonly headersTimeoutMs: number;
    readonly keepAliveTimeoutMs: number;
    /** A connection its client leaves silent this long, mid-request or mid-answer, is closed. */
    readonly idleTimeoutMs: number;
  };
  /** The built-in SSH server (git over SSH). */
  readonly ssh: {
    readonly enabled: boolean;
    /** Unset: the HTTP host. */
    readonly host: string | undefined;
    readonly port: number;
    /** Shown in clone URLs; unset: the base URL's host (or the request's). */
    readonly publicHost: string | undefined;
    /** Shown in clone URLs; 0: the listening port. */
    readonly publicPort: number;
    readonly maxSessions: number;
    readonly idleTimeoutMs: number;
    readonly loginTimeoutMs: number;
  };
  readonly baseUrl: URL | undefined;
  readonly trustProxy: readonly string[];
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  /** PostgreSQL: the connection that listens for other replicas' writes (see change-notices). */
  readonly databaseListenUrl: string | undefined;
  readonly adminHandles: readonly string[];
  readonly secretKey: string | undefined;
  readonly forgeApiVersion: string;
  readonly signup: { readonly enabled: boolean };
  readonly auth: {
    readonly sessionLifetimeMs: number;
    /** Sign-in throttling: limits per window, then a lock that doubles with each failure. */
    readonly login: {
      readonly accountLimit: number;
      readonly addressLimit: number;
      readonly windowMs: number;
      readonly lockMs: number;
    };
  };
  readonly logLevel: string;
  readonly protect: {
    readonly enabled: boolean;
    readonly anonymousBudget: number;
    readonly userBudget: number;
    readonly windowMs: number;
    readonly captchaProvider: CaptchaProvider | undefined;
    readonly captchaSiteKey: string | undefined;
    readonly captchaSecretKey: string | undefined;
    readonly captchaVerifyUrl: URL | undefined;
    readonly passLifetimeMs: number;
    readonly signupCaptcha: boolean;
    readonly loginCaptchaAfter: number;
  };
  readonly metrics: { readonly token: string | undefined; readonly allowLoopback: boolean };
  readonly archive: {
    readonly maxConcurrent: number;
    readonly maxQueued: number;
    readonly queueTimeoutMs: number;
  };
  /** Raw files past 1 MiB, streamed from git: how many at once, how many may wait, how long. */
  readonly raw: {
    readonly maxConcurrent: number;
    readonly maxQueued: number;
    readonly queueTimeoutMs: number;
  };
  readonly render: {
    readonly workers: number;
    readonly timeoutMs: number;
    readonly maxBytes: number;
    readonly queueLimit: number;
    readonly cacheBytes: number;
    /** Pages one process builds at once (0: no limit), how many may wait, and for how long. */
    readonly pages: {
      readonly maxActive: number;
      readonly maxWaiting: number;
      readonly maxWaitMs: number;
    };
  };
  readonly ci: {
    readonly taskTimeoutMs: number;
    readonly zombieReclaimIntervalMs: number;
    readonly heartbeatTimeoutMs: number;
    readonly abandonedTimeoutMs: number;
    readonly logRetentionMs: number;
    /** Caps on uploaded logs: bytes and rows per task, bytes per repository. */
    readonly logLimits: {
      readonly maxBytesPerTask: number;
      readonly maxRowsPerTask: number;
      readonly maxBytesPerRepo: number;
    };
    /** Largest total of one repository's CI cache entries, in bytes (least recently used go). */
    readonly cacheSizeBytes: number;
    /** Longest an artifact is kept, and the bytes of artifacts one repository may keep. */
    readonly artifactRetentionMs: number;
    readonly artifactMaxBytesPerRepo: number;
    readonly actionsUrl: URL | undefined;
    /** Owners whose repositories the instance serves as its actions source; admin-only. */
    readonly actionOwners: readonly string[];
  };
  readonly federation: {
    readonly enabled: boolean;
    readonly allowedHosts: readonly string[];
    readonly blockedHosts: readonly string[];
    readonly allowPrivateAddresses: boolean;
    /** Actor and collection documents only for signed GETs (the instance actor excepted). */
    readonly requireSignedFetch: boolean;
    readonly giveUpAfterMs: number;
    /** The most bytes a fork of a remote repository may take on disk; 0 for no limit. */
    readonly maxForkBytes: number;
    /** Activities per minute accepted from one remote actor, and from one remote server. */
    readonly inboxLimitPerActor: number;
    readonly inboxLimitPerHost: number;
    /**
     * The address `serve` derives from a loopback listening address when `baseUrl` is unset
     * (src/cli/defaults.ts): federation's own, for this machine only. Links elsewhere keep
     * following each request, as a proxy in front may give them another host.
     */
    readonly loopbackBaseUrl?: URL;
  };
  readonly webhook: {
    readonly allowedHosts: readonly string[];
    readonly timeoutMs: number;
    readonly maxAttempts: number;
    readonly retryDelayMs: number;
    readonly disableAfter: number;
    readonly retentionMs: number;
    readonly concurrency: number;
  };
  /**
   * Git LFS: whether it is served, the largest object accepted (0: no limit), and whether SSH
   * serves `git-lfs-transfer` (off: git-lfs uses `git-lfs-authenticate` and HTTP).
   */
  readonly lfs: {
    readonly enabled: boolean;
    readonly maxFileSize: number;
    readonly sshTransfer: boolean;
  };
  readonly housekeeping: {
    readonly enabled: boolean;
    readonly concurrency: number;
    readonly packThreshold: number;
    readonly looseThreshold: number;
    readonly pruneAfterMs: number;
    readonly pruneIntervalMs: number;
  };
};

/** Shapes the flat key → value map into the nested object the code reads. */
export function toConfig(values: ConfigValues): Config {
  return Object.freeze({
    http: Object.freeze({
      host: values['service.http.host'],
      port: values['service.http.port'],
      bodyLimitBytes: values['service.http.body-limit'],
      requestTimeoutMs: values['service.http.request-timeout'],
      headersTimeoutMs: values['service.http.headers-timeout'],
      keepAliveTimeoutMs: values['service.http.keep-alive-timeout'],
      idleTimeoutMs: values['service.http.idle-timeout'],
    }),
    ssh: Object.freeze({
      enabled: values['service.ssh.enabled'],
      host: values['service.ssh.host'],
      port: values['service.ssh.port'],
      publicHost: values['service.ssh.public-host'],
      publicPort: values['service.ssh.public-port'],
      maxSessions: values['service.ssh.max-sessions'],
      idleTimeoutMs: values['service.ssh.idle-timeout'],
      loginTimeoutMs: values['service.ssh.login-timeout'],
    }),
    baseUrl: values['service.base-url'],
    trustProxy: values['service.trust-proxy'],
    dataDir: values['service.data-dir'],
    databaseUrl: values['service.database-url'],
    databaseListenUrl: values['service.database-listen-url'],
    adminHandles: values['service.admin-handles'],
    secretKey: values['service.secret-key'],
    forgeApiVersion: values['service.forge-api.version'],
    signup: Object.freeze({
      enabled: values['service.signup.enabled'] && values['service.auth.open-registration'],
    }),
    auth: Object.freeze({
      sessionLifetimeMs: values['service.auth.session-lifetime'],
      login: Object.freeze({
        accountLimit: values['service.auth.login-account-limit'],
        addressLimit: values['service.auth.login-address-limit'],
        windowMs: values['service.auth.login-window'],
        lockMs: values['service.auth.login-lock'],
      }),
    }),
    logLevel: values['service.log.level'] ?? 'info',
    protect: Object.freeze({
      enabled: values['service.protect.enabled'],
      anonymousBudget: values['service.protect.anonymous-budget'],
      userBudget: values['service.protect.user-budget'],
      windowMs: values['service.protect.window'],
      captchaProvider: values['service.protect.captcha-provider'],
      captchaSiteKey: values['service.protect.captcha-site-key'],
      captchaSecretKey: values['service.protect.captcha-secret-key'],
      captchaVerifyUrl: values['service.protect.captcha-verify-url'],
      passLifetimeMs: values['service.protect.pass-lifetime'],
      signupCaptcha: values['service.protect.signup-captcha'],
      loginCaptchaAfter: values['service.protect.login-captcha-after'],
    }),
    metrics: Object.freeze({
      token: values['service.metrics.token'],
      allowLoopback: values['service.metrics.allow-loopback'],
    }),
    archive: Object.freeze({
      maxConcurrent: values['service.archive.max-concurrent'],
      maxQueued: values['service.archive.max-queued'],
      queueTimeoutMs: values['service.archive.queue-timeout'],
    }),
    raw: Object.freeze({
      maxConcurrent: values['service.raw.max-concurrent'],
      maxQueued: values['service.raw.max-queued'],
      queueTimeoutMs: values['service.raw.queue-timeout'],
    }),
    render: Object.freeze({
      workers: values['service.render.workers'],
      timeoutMs: values['service.render.timeout'],
      maxBytes: values['service.render.max-bytes'],
      queueLimit: values['service.render.queue'],
      cacheBytes: values['service.render.cache-size'],
      pages: Object.freeze({
        maxActive: values['service.render.max-concurrent-pages'],
        maxWaiting: values['service.render.max-queued-pages'],
        maxWaitMs: values['service.render.page-queue-timeout'],
      }),
    }),
    webhook: Object.freeze({
      allowedHosts: values['service.webhook.allowed-hosts'],
      timeoutMs: values['service.webhook.timeout'],
      maxAttempts: values['service.webhook.max-attempts'],
      retryDelayMs: values['service.webhook.retry-delay'],
      disableAfter: values['service.webhook.disable-after'],
      retentionMs: values['service.webhook.retention'],
      concurrency: values['service.webhook.concurrency'],
    }),
    lfs: Object.freeze({
      enabled: values['service.lfs.enabled'],
      maxFileSize: values['service.lfs.max-file-size'],
      sshTransfer: values['service.lfs.ssh-transfer'],
    }),
    housekeeping: Object.freeze({
      enabled: values['service.housekeeping.enabled'],
      concurrency: values['service.housekeeping.concurrency'],
      packThreshold: values['service.housekeeping.pack-threshold'],
      looseThreshold: values['service.housekeeping.loose-threshold'],
      pruneAfterMs: values['service.housekeeping.prune-after'],
      pruneIntervalMs: values['service.housekeeping.prune-interval'],
    }),
    ci: Object.freeze({
      taskTimeoutMs: values['service.ci.task-timeout'],
      zombieReclaimIntervalMs: values['service.ci.zombie-reclaim-interval'],
      heartbeatTimeoutMs: values['service.ci.heartbeat-timeout'],
      abandonedTimeoutMs: values['service.ci.abandoned-timeout'],
      logRetentionMs: values['service.ci.log-retention'],
      logLimits: Object.freeze({
        maxBytesPerTask: values['service.ci.log-max-bytes-per-task'],
        maxRowsPerTask: values['service.ci.log-max-rows-per-task'],
        maxBytesPerRepo: values['service.ci.log-max-bytes-per-repo'],
      }),
      cacheSizeBytes: values['service.ci.cache-size'],
      artifactRetentionMs: values['service.ci.artifact-retention'],
      artifactMaxBytesPerRepo: values['service.ci.artifact-max-bytes-per-repo'],
      actionsUrl: values['service.ci.actions-url'],
      actionOwners: values['service.ci.action-owners'],
    }),
    federation: Object.freeze({
      enabled: values['service.federation.enabled'],
      allowedHosts: values['service.federation.allowed-hosts'],
      blockedHosts: values['service.federation.blocked-hosts'],
      allowPrivateAddresses: values['service.federation.allow-private-addresses'],
      requireSignedFetch: values['service.federation.require-signed-fetch'],
      giveUpAfterMs: values['service.federation.give-up-after'],
      maxForkBytes: values['service.federation.max-fork-size'],
      inboxLimitPerActor: values['service.federation.inbox-limit-per-actor'],
      inboxLimitPerHost: values['service.federation.inbox-limit-per-host'],
    }),
  });
}
