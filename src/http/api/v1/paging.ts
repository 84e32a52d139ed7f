import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Page } from '../../../domain/paging.ts';
import { BoundedMap } from '../../../lib/bounded-map.ts';
import { isRecord } from '../../../lib/narrow.ts';
import { pureCache } from '../../../lib/pure-caches.ts';
import { Type } from '../../../present/schemas/type.ts';

export const DEFAULT_PAGE_SIZE = 30;
export const MAX_PAGE_SIZE = 50;

/** `page` and `limit` as Gitea reads them: anything unusable falls back to the default. */
export const PagingQuerySchema = Type.Object(
  {
    page: Type.Optional(Type.String({ maxLength: 20 })),
    limit: Type.Optional(Type.String({ maxLength: 20 })),
  },
  { additionalProperties: true },
);

export type Paging = Page & { readonly page: number };

function positive(text: unknown): number | undefined {
  // Routes whose schema leaves `page` unchecked hand over what came: `?page=1&page=2` is an array.
  if (typeof text !== 'string' || !/^\d{1,9}$/.test(text.trim())) return undefined;
  const value = Number(text);
  return value > 0 ? value : undefined;
}

/** 1-based page, `limit` defaulting to 30 and silently capped at 50 (Gitea's MAX_RESPONSE_ITEMS). */
export function readPaging(query: unknown): Paging {
  const { page, limit } = isRecord(query) ? query : {};
  const size = Math.min(positive(limit) ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const number = positive(page) ?? 1;
  return { page: number, limit: size, offset: (number - 1) * size };
}

/**
 * `X-Total-Count` and an absolute `Link` header with first/prev/next/last, each carrying `page`
 * (go-sdk reads the page numbers from it; Renovate follows `next`).
 */
export function setPagingHeaders(
  request: FastifyRequest,
  reply: FastifyReply,
  baseUrl: string,
  paging: Paging,
  total: number,
): void {
  reply.header('X-Total-Count', String(total));
  // Clients ask for the same pages again and again; the header is a function of these alone.
  const key = `${baseUrl}\n${request.url}\n${paging.page}\n${paging.limit}\n${total}`;
  let link = linkHeaders.get(key);
  if (link === undefined) {
    link = linkHeader(request.url, baseUrl, paging, total);
    linkHeaders.set(key, link);
  }
  if (link !== '') reply.header('Link', link);
  reply.header('Access-Control-Expose-Headers', 'X-Total-Count, Link');
}

/** Link headers made recently, by everything they are made from (bounded: URLs come from outside). */
const linkHeaders = pureCache(
  {
    name: 'link_headers',
    key: 'request URL, base URL, page, limit and total',
    bound: '1,000 headers',
  },
  new BoundedMap<string, string>(1_000),
);

/** The `Link` header's value for this page of `total` items; empty when there is one page. */
function linkHeader(requestUrl: string, baseUrl: string, paging: Paging, total: number): string {
  const lastPage = Math.max(1, Math.ceil(total / paging.limit));
  const url = new URL(requestUrl, `${baseUrl}/`);
  url.protocol = new URL(baseUrl).protocol;
  url.host = new URL(baseUrl).host;
  const link = (page: number, rel: string) => {
    url.searchParams.set('page', String(page));
    url.searchParams.set('limit', String(paging.limit));
    return `<${url.href}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (paging.page < lastPage) links.push(link(paging.page + 1, 'next'), link(lastPage, 'last'));
  if (paging.page > 1)
    links.push(link(1, 'first'), link(Math.min(paging.page - 1, lastPage), 'prev'));
  return links.join(', ');
}

/**
 * One page of a list already read whole (a short one: CI secrets, variables), with the paging
 * headers set for its full length.
 */
export function pageOfList<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  baseUrl: string,
  all: readonly T[],
): T[] {
  const paging = readPaging(request.query);
  setPagingHeaders(request, reply, baseUrl, paging, all.length);
  return all.slice(paging.offset, paging.offset + paging.limit);
}
