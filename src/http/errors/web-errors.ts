import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type DomainError, isDomainError } from '../../domain/errors.ts';
import { html } from '../web/html.ts';
import type { Pages } from '../web/page.ts';
import { statusOf } from './error-table.ts';
import { withRetryAfter } from './retry-after.ts';

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Sign in required',
  403: 'Forbidden',
  404: 'Page not found',
  405: 'Not allowed',
  409: 'Conflict',
  413: 'Too large',
  415: 'Unsupported input',
  422: 'Invalid input',
  429: 'Too many requests',
  500: 'Something went wrong',
  503: 'Unavailable',
};

/** The page status of a domain error: the one map pages use, for error pages and re-shown forms. */
export function pageStatusOf(error: DomainError): number {
  return statusOf(error.code, 'page');
}

export function sendErrorPage(
  pages: Pages,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  message: string,
): FastifyReply {
  const title = TITLES[status] ?? 'Error';
  return pages.send(request, reply, {
    status,
    title,
    body: html`<div class="blankslate">
      <h1 class="blankslate-heading f1">${status}</h1>
      <h2 class="h3">${title}</h2>
      <p>${message}</p>
      <p><a href="/">Back to the start page</a></p>
    </div>`,
  });
}

/** The single page error translator: rendered pages in the layout, never a stack trace. */
export function webErrorHandler(pages: Pages) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (isDomainError(error)) {
      const status = pageStatusOf(error);
      const message =
        status === 404 ? 'There is nothing here, or you may not see it.' : error.message;
      return sendErrorPage(pages, request, withRetryAfter(reply, error), status, message);
    }
    const status = error.statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return sendErrorPage(pages, request, reply, status, 'The request could not be understood.');
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendErrorPage(pages, request, reply, 500, 'The error has been logged.');
  };
}
