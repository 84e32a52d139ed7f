import type { FastifyRequest } from 'fastify';
import type { Config } from '../config/config.ts';

const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/**
 * The external base URI of a request, without a trailing slash: `service.base-url` when set,
 * otherwise scheme and host as seen through trusted proxies (Fastify's `trustProxy` decides
 * whether X-Forwarded-Proto/Host are believed). A host header that is not a plain host[:port]
 * falls back to the listening address, so nothing odd is ever echoed into a URL.
 */
export function baseUrlOf(
  request: FastifyRequest,
  config: Pick<Config, 'baseUrl' | 'http'>,
): string {
  if (config.baseUrl) return config.baseUrl.href.replace(/\/+$/, '');
  const protocol = request.protocol === 'https' ? 'https' : 'http';
  const host = HOST.test(request.host) ? request.host : `${config.http.host}:${config.http.port}`;
  return `${protocol}://${host}`;
}

/** Whether cookies should carry `Secure`: the external URL is https. */
export function isSecureOrigin(
  request: FastifyRequest,
  config: Pick<Config, 'baseUrl' | 'http'>,
): boolean {
  return baseUrlOf(request, config).startsWith('https:');
}
