import { Invalid } from '../errors.ts';
import { covers } from './host-policy.ts';

/** What a block names: one remote actor, or a whole server (and its subdomains). */
export type BlockKind = 'actor' | 'host';

/** One block as stored: `target` is already normalised (`normaliseBlockTarget`). */
export type Block = {
  readonly kind: BlockKind;
  readonly target: string;
  /** The repository it holds for; undefined for a site administrator's block (everywhere). */
  readonly repoId: string | undefined;
  readonly createdAt: Date;
};

const HOST_RULE = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:\d{1,5})?$/;
const DEFAULT_PORTS: Readonly<Record<string, string>> = { 'http:': '80', 'https:': '443' };

/**
 * The one spelling of an actor id that blocks compare: scheme and host lower-cased (URL does
 * that), the default port dropped, no query, fragment or trailing slashes, and the path
 * lower-cased too. Servers may treat paths case-sensitively, but a block must not be slipped by
 * spelling the same actor another way; a false match costs one stranger on that server, which
 * a host block would cost anyway. Undefined for anything that is not an http(s) URL.
 */
export function normaliseActorId(id: string): string | undefined {
  if (!URL.canParse(id)) return undefined;
  const url = new URL(id);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username || url.password) return undefined;
  const port = url.port && url.port !== DEFAULT_PORTS[url.protocol] ? `:${url.port}` : '';
  const path = url.pathname.replace(/\/+$/, '').toLowerCase();
  return `${url.protocol}//${url.hostname}${port}${path}`;
}

/** The `URL.host` an actor id is served from (port kept when not the default), lower-cased. */
export function actorHost(id: string): string | undefined {
  const normal = normaliseActorId(id);
  return normal === undefined ? undefined : new URL(normal).host;
}

/**
 * What a block of `kind` stores for what a person typed: an actor id normalised, or a host rule
 * (`bad.example`, `bad.example:8443`; a URL is taken for its host). Invalid with the reason
 * otherwise, so a block that could never match is never made.
 */
export function normaliseBlockTarget(kind: BlockKind, typed: string): string {
  const text = typed.trim();
  if (kind === 'actor') {
    const actor = normaliseActorId(text);
    if (!actor) throw new Invalid(`"${typed}" is not the URL of an actor`);
    return actor;
  }
  const host = text.includes('://') ? actorHost(text) : text.toLowerCase().replace(/\/+$/, '');
  if (!host || !HOST_RULE.test(host)) throw new Invalid(`"${typed}" is not a host name`);
  const [name, port] = host.split(':');
  return port === '443' || port === '80' ? (name ?? host) : host;
}

/**
 * Whether `block` holds for the actor `actorId`. Invariant: a block of a host holds for every
 * actor served from it or from its subdomains, on any port unless the rule names one
 * (`covers`); a block of an actor holds for every spelling of its id.
 */
export function blockCovers(block: Pick<Block, 'kind' | 'target'>, actorId: string): boolean {
  const actor = normaliseActorId(actorId);
  if (actor === undefined) return false;
  if (block.kind === 'actor') return block.target === actor;
  return covers(block.target, new URL(actor).host);
}

/** The first of `blocks` that holds for `actorId`, if any. */
export function blockOf(blocks: readonly Block[], actorId: string): Block | undefined {
  return blocks.find((block) => blockCovers(block, actorId));
}
