import type { CacheRegistry } from '../../lib/cache-registry.ts';
import { foldId, newId } from '../../lib/ids.ts';
import { isOneOf } from '../../lib/narrow.ts';
import { StampedMemo } from '../../lib/stamped-memo.ts';
import type { AdminPolicy } from '../admin/admin.policy.ts';
import { deriveSecretKey, openSecret, sealSecret } from '../ci/secret-box.ts';
import { Forbidden, Invalid, NotFound } from '../errors.ts';
import type { EventPublisher } from '../events.ts';
import type { OrgService } from '../orgs/org.service.ts';
import { mayAdministerOrg } from '../repos/repo.policy.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository } from '../repos/repo.types.ts';
import type { Account, User } from '../users/user.types.ts';
import { branchMatches } from './branch-filter.ts';
import type { DeliveryStore } from './delivery.store.ts';
import { ownerKey, type StoredHook, type WebhookStore } from './webhook.store.ts';
import {
  type Delivery,
  HOOK_EVENTS,
  HOOK_TYPES,
  type HookEvent,
  type HookInput,
  type HookOwner,
  type HookType,
  type OutgoingEvent,
  type Webhook,
} from './webhook.types.ts';

export type WebhookServiceDeps = {
  readonly hooks: WebhookStore;
  readonly deliveries: DeliveryStore;
  readonly repos: RepoService;
  readonly orgs: OrgService;
  readonly admins: AdminPolicy;
  /** `service.secret-key`; without it hooks cannot keep secrets. */
  readonly secretKey: string | undefined;
  /** Where queued deliveries are announced (`webhook.queued`), so a worker starts at once. */
  readonly events?: EventPublisher;
  /** What builds test deliveries; without it they are not available. */
  readonly testEvents?: TestEventBuilder;
  /** Where its cache is declared (the composition root's registry). */
  readonly caches?: CacheRegistry;
};

/** Where an event happened: the repository, and the organisation owning it if any. */
export type EventScope = { readonly repo: Repository } | { readonly org: Account };

/** Turns a hook's Gitea payload into the format of the receiver type. */
export type PayloadFormatter = (type: HookType) => unknown;

/**
 * Builds the event a "test delivery" sends for a repository: a push of its latest commit, as
 * Gitea does. Supplied by whoever knows the payload shapes (`notify/`, handed in at start).
 */
export type TestEventBuilder = (
  repo: Repository,
  actor: User,
) => Promise<{ event: OutgoingEvent; format: PayloadFormatter }>;

const RETAINED_PER_HOOK = 50;

/**
 * Webhooks: who may manage which (repository admins, organisation owners, instance admins, as
 * Gitea), and the hand-off of events into the delivery queue. Secrets are sealed with the
 * instance key (the CI secrets' AES-GCM box, with its own context) and only opened to sign.
 */
export class WebhookService {
  readonly #deps: WebhookServiceDeps;
  readonly #key: Buffer | undefined;
  readonly #activeOwners = new StampedMemo<'all', Set<string>>(1);

  constructor(deps: WebhookServiceDeps) {
    this.#deps = deps;
    this.#key = deps.secretKey === undefined ? undefined : deriveSecretKey(deps.secretKey);
    deps.caches?.add(
      {
        name: 'webhook_active_owners',
        key: 'one entry: the owners with an active hook',
        freshness: 'change-stamp',
        bound: '1 entry',
      },
      this.#activeOwners,
    );
  }

  /** The hooks owner of a repository the actor administers (404 when they cannot see it). */
  async repoOwner(actor: User | undefined, owner: string, name: string): Promise<HookOwner> {
    const { repo } = await this.#deps.repos.require(actor, owner, name, 'admin');
    return { kind: 'repo', id: repo.id };
  }

  /** The hooks owner of an organisation the actor owns. */
  async orgOwner(actor: User | undefined, org: string): Promise<HookOwner> {
    const account = await this.#deps.orgs.getOrg(org);
    if (!actor) throw new NotFound(`org does not exist [name: ${org}]`);
    if (this.#deps.admins.isAdmin(actor)) return { kind: 'org', id: account.id };
    const role = await this.#deps.orgs.roleOf(account.id, actor.id);
    if (role === undefined) throw new NotFound(`org does not exist [name: ${org}]`);
    if (!mayAdministerOrg(role, false, this.#deps.admins.isActionOwner(account.handle))) {
      throw new Forbidden('you must be an owner of the organisation');
    }
    return { kind: 'org', id: account.id };
  }

  /**
   * The hooks owner of an organisation, for its settings pages: as `orgOwner`, but members who
   * are not owners are told it does not exist, as settings are hidden from everyone else.
   */
  async orgSettingsOwner(actor: User, org: string): Promise<HookOwner> {
    const account = await this.#deps.orgs.getOrg(org);
    if (this.#deps.admins.isAdmin(actor)) return { kind: 'org', id: account.id };
    const role = await this.#deps.orgs.roleOf(account.id, actor.id);
    if (!mayAdministerOrg(role, false, this.#deps.admins.isActionOwner(account.handle))) {
      throw new NotFound(`org does not exist [name: ${org}]`);
    }
    return { kind: 'org', id: account.id };
  }

  /** The system hooks, for instance admins only. */
  systemOwner(actor: User | undefined): HookOwner {
    if (!this.#deps.admins.isAdmin(actor)) throw new Forbidden('you must be a site administrator');
    return { kind: 'system', id: '' };
  }

  list(owner: HookOwner): Promise<Webhook[]> {
    return this.#deps.hooks.list(owner);
  }

  async get(owner: HookOwner, wireId: number): Promise<Webhook> {
    return (await this.#deps.hooks.get(owner, wireId)).hook;
  }

  async create(owner: HookOwner, input: HookInput): Promise<Webhook> {
    if (!input.type) throw new Invalid('type is required');
    if (!input.url) throw new Invalid('config.url is required');
    const id = newId();
    const now = Date.now();
    return this.#deps.hooks.insert({
      id,
      wire_id: foldId(id),
      owner_kind: owner.kind,
      owner_id: owner.id,
      type: checkType(input.type),
      url: checkUrl(input.url),
      content_type: input.contentType ?? 'json',
      http_method: input.httpMethod ?? 'POST',
      sealed_secret: this.#seal(id, 'secret', input.secret ?? ''),
      sealed_authorization: this.#seal(id, 'authorization', input.authorizationHeader ?? ''),
      events: JSON.stringify(checkEvents(input.events?.length ? input.events : ['push'])),
      branch_filter: input.branchFilter ?? '*',
      active: input.active ?? false,
      consecutive_failures: 0,
      disabled_reason: null,
      created_at: now,
      updated_at: now,
    });
  }

  async update(owner: HookOwner, wireId: number, input: HookInput): Promise<Webhook> {
    const { hook } = await this.#deps.hooks.get(owner, wireId);
    const changes = {
      updated_at: Date.now(),
      ...(input.url !== undefined ? { url: checkUrl(input.url) } : {}),
      ...(input.contentType !== undefined ? { content_type: input.contentType } : {}),
      ...(input.httpMethod !== undefined ? { http_method: input.httpMethod } : {}),
      ...(input.secret !== undefined
        ? { sealed_secret: this.#seal(hook.id, 'secret', input.secret) }
        : {}),
      ...(input.authorizationHeader !== undefined
        ? { sealed_authorization: this.#seal(hook.id, 'authorization', input.authorizationHeader) }
        : {}),
      ...(input.events !== undefined ? { events: JSON.stringify(checkEvents(input.events)) } : {}),
      ...(input.branchFilter !== undefined ? { branch_filter: input.branchFilter } : {}),
      // Switching a hook on again forgets why Kiln had switched it off.
      ...(input.active !== undefined
        ? input.active
          ? { active: true, consecutive_failures: 0, disabled_reason: null }
          : { active: false }
        : {}),
    };
    await this.#deps.hooks.update(hook.id, changes);
    return (await this.#deps.hooks.get(owner, wireId)).hook;
  }

  async delete(owner: HookOwner, wireId: number): Promise<void> {
    const { hook } = await this.#deps.hooks.get(owner, wireId);
    await this.#deps.hooks.delete(hook.id);
  }

  /** The hook's latest deliveries, newest first. */
  async deliveries(owner: HookOwner, wireId: number): Promise<Delivery[]> {
    const { hook } = await this.#deps.hooks.get(owner, wireId);
    return this.#deps.deliveries.listForHook(hook.id, RETAINED_PER_HOOK);
  }

  /**
   * The owner's hooks, each with its latest delivery if it has one (what the hooks list shows):
   * two queries however many hooks there are.
   */
  async listWithLatest(
    owner: HookOwner,
  ): Promise<Array<{ hook: Webhook; last: Delivery | undefined }>> {
    const hooks = await this.#deps.hooks.list(owner);
    const latest = await this.#deps.deliveries.latestOf(hooks.map((hook) => hook.id));
    return hooks.map((hook) => ({ hook, last: latest.get(hook.id) }));
  }

  /**
   * Queues a test push for one repository hook whatever its subscriptions or state (the "test
   * delivery" button and `POST …/hooks/{id}/tests`).
   */
  async sendTest(actor: User, owner: string, name: string, wireId: number): Promise<void> {
    const { repo } = await this.#deps.repos.require(actor, owner, name, 'admin');
    const { hook } = await this.#deps.hooks.get({ kind: 'repo', id: repo.id }, wireId);
    const { testEvents } = this.#deps;
    if (!testEvents) throw new Invalid('test deliveries are not available');
    const { event, format } = await testEvents(repo, actor);
    await this.#enqueue([hook], event, format);
  }

  /** Queues a recorded delivery again, as it was first sent. */
  async redeliver(owner: HookOwner, wireId: number, deliveryId: string): Promise<void> {
    const { hook } = await this.#deps.hooks.get(owner, wireId);
    const delivery = await this.#deps.deliveries.find(hook.id, deliveryId);
    if (!delivery) throw new NotFound(`delivery does not exist [id: ${deliveryId}]`);
    const now = Date.now();
    await this.#deps.deliveries.enqueue([
      queuedRow(hook.id, delivery.event, delivery.eventType, delivery.payload, now),
    ]);
    await this.#deps.events?.publish('webhook.queued', { deliveries: 1 });
  }

  /**
   * Queues an event for every active hook that wants it: the repository's, its organisation's
   * and the system's. A private repository's events reach only those (never another owner's
   * hooks), which holds by construction: no other owner is ever asked.
   */
  async dispatch(repo: Repository, event: OutgoingEvent, format: PayloadFormatter): Promise<void> {
    const candidates = await this.#deps.hooks.activeFor(ownersOf(repo));
    const wanted = candidates.filter(
      (hook) =>
        subscribes(hook.events, event.subscription) &&
        (event.branch === null || branchMatches(hook.branchFilter, event.branch)),
    );
    await this.#enqueue(wanted, event, format);
  }

  /**
   * Whether any active hook could hear of this repository's events (before building one). Asked
   * for every event, so the owners with active hooks are read once and kept while the hooks'
   * change clock holds still: an instance without hooks answers from memory, and a hook added
   * or switched on moves the clock, so the next event sees it.
   */
  async anyActiveFor(repo: Repository): Promise<boolean> {
    const owners = await this.#activeOwners.read('all', this.#deps.hooks.stamp(), () =>
      this.#deps.hooks.activeOwners(),
    );
    return ownersOf(repo).some((owner) => owners.has(ownerKey(owner)));
  }

  async #enqueue(hooks: readonly Webhook[], event: OutgoingEvent, format: PayloadFormatter) {
    if (hooks.length === 0) return;
    const now = Date.now();
    const texts = new Map<HookType, string>();
    const rows = hooks.map((hook) => {
      let text = texts.get(hook.type);
      if (text === undefined) {
        text = JSON.stringify(format(hook.type));
        texts.set(hook.type, text);
      }
      return queuedRow(hook.id, event.event, event.eventType, text, now);
    });
    await this.#deps.deliveries.enqueue(rows);
    await this.#deps.events?.publish('webhook.queued', { deliveries: rows.length });
  }

  /** The hook's secret and authorization header in plaintext, for signing one request. */
  openCredentials(stored: StoredHook): { secret: string; authorization: string } {
    return {
      secret: this.#open(stored.hook.id, 'secret', stored.row.sealed_secret),
      authorization: this.#open(stored.hook.id, 'authorization', stored.row.sealed_authorization),
    };
  }

  #seal(hookId: string, what: string, value: string): string | null {
    if (value === '') return null;
    if (!this.#key) throw new Invalid('webhook secrets need service.secret-key to be set');
    return sealSecret(this.#key, value, `webhook/${hookId}/${what}`);
  }

  #open(hookId: string, what: string, sealed: string | null): string {
    if (sealed === null || !this.#key) return '';
    return openSecret(this.#key, sealed, `webhook/${hookId}/${what}`);
  }
}

/** A delivery row waiting for its first attempt at `now`. */
export function queuedRow(
  hookId: string,
  event: string,
  eventType: string,
  payload: string,
  now: number,
) {
  return {
    id: newId(),
    hook_id: hookId,
    event,
    event_type: eventType,
    payload,
    state: 'queued' as const,
    attempts: 0,
    next_attempt_at: now,
    lease_until: 0,
    request_url: null,
    request_headers: null,
    request_body: null,
    response_status: null,
    response_headers: null,
    response_body: null,
    error: null,
    duration_ms: null,
    created_at: now,
    delivered_at: null,
  };
}

/** `pull_request` covers the pull's synchronisations too, as in Gitea. */
function subscribes(events: readonly HookEvent[], wanted: HookEvent): boolean {
  return (
    events.includes(wanted) || (wanted === 'pull_request_sync' && events.includes('pull_request'))
  );
}

function checkType(type: string): HookType {
  if (!isOneOf(HOOK_TYPES, type)) throw new Invalid(`invalid hook type: ${type}`);
  return type;
}

function checkUrl(url: string): string {
  if (!URL.canParse(url)) throw new Invalid(`invalid url: ${url}`);
  const protocol = new URL(url).protocol;
  if (protocol !== 'http:' && protocol !== 'https:') throw new Invalid(`invalid url: ${url}`);
  return url;
}

function checkEvents(events: readonly string[]): HookEvent[] {
  const checked = new Set<HookEvent>();
  for (const event of events) {
    if (!isOneOf(HOOK_EVENTS, event)) throw new Invalid(`unknown hook event: ${event}`);
    checked.add(event);
  }
  return [...checked];
}

/** Whose hooks hear of a repository's events: its own, its organisation's and the system's. */
function ownersOf(repo: Repository): HookOwner[] {
  const owners: HookOwner[] = [
    { kind: 'repo', id: repo.id },
    { kind: 'system', id: '' },
  ];
  if (repo.owner.kind === 'org') owners.push({ kind: 'org', id: repo.owner.id });
  return owners;
}
