/** Where a hook hangs: one repository, one organisation, or the whole instance. */
export type HookOwner =
  | { readonly kind: 'repo'; readonly id: string }
  | { readonly kind: 'org'; readonly id: string }
  | { readonly kind: 'system'; readonly id: '' };

/** The receivers Kiln formats for, by Gitea's type names. */
export const HOOK_TYPES = ['gitea', 'forgejo', 'slack', 'discord', 'msteams', 'matrix'] as const;
export type HookType = (typeof HOOK_TYPES)[number];

/**
 * The event names a hook subscribes to, as Gitea spells them. `pull_request` covers the whole
 * pull lifecycle (its synchronisations too); `pull_request_sync` alone subscribes to new commits.
 */
export const HOOK_EVENTS = [
  'create',
  'delete',
  'fork',
  'push',
  'pull_request',
  'pull_request_sync',
  'pull_request_review_comment',
  'release',
  'repository',
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** A hook as the domain sees it; the secret stays sealed until a delivery is signed. */
export type Webhook = {
  readonly id: string;
  readonly wireId: number;
  readonly owner: HookOwner;
  readonly type: HookType;
  readonly url: string;
  readonly contentType: 'json' | 'form';
  readonly httpMethod: 'POST' | 'GET';
  readonly hasSecret: boolean;
  readonly events: readonly HookEvent[];
  readonly branchFilter: string;
  readonly active: boolean;
  readonly consecutiveFailures: number;
  /** Why Kiln switched the hook off by itself; null when it did not. */
  readonly disabledReason: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
};

/** What creating or editing a hook may set; absent fields keep their value (or default). */
export type HookInput = {
  readonly type?: HookType;
  readonly url?: string;
  readonly contentType?: 'json' | 'form';
  readonly httpMethod?: 'POST' | 'GET';
  /** '' removes the secret. */
  readonly secret?: string;
  readonly authorizationHeader?: string;
  readonly events?: readonly HookEvent[];
  readonly branchFilter?: string;
  readonly active?: boolean;
};

/**
 * One event ready to go out: Gitea's event name (`X-Gitea-Event`), its detailed type
 * (`X-Gitea-Event-Type`, e.g. `pull_request_sync`), the subscription it needs, the branch it
 * concerns (for branch filters) and the payload already in Gitea's shape.
 */
export type OutgoingEvent = {
  readonly event: string;
  readonly eventType: string;
  readonly subscription: HookEvent;
  readonly branch: string | null;
  readonly payload: unknown;
};

/** A delivery record, for the log page and redelivery. */
export type Delivery = {
  readonly id: string;
  readonly hookId: string;
  readonly event: string;
  readonly eventType: string;
  readonly state: 'queued' | 'delivered' | 'failed';
  readonly attempts: number;
  readonly requestUrl: string | null;
  readonly requestHeaders: Record<string, string>;
  readonly requestBody: string | null;
  readonly payload: string;
  readonly responseStatus: number | null;
  readonly responseHeaders: Record<string, string>;
  readonly responseBody: string | null;
  readonly error: string | null;
  readonly durationMs: number | null;
  readonly createdAt: Date;
  readonly deliveredAt: Date | null;
};
