import { type OutboundOptions, sendOutbound } from '../../outbound/outbound-request.ts';
import type { AttemptRecord, ClaimedDelivery } from './delivery.store.ts';
import type { StoredHook } from './webhook.store.ts';
import { buildHookRequest, recordableHeaders } from './webhook-request.ts';

/** One attempt's record and what it means: whether it succeeded, and whether to try again. */
export type AttemptResult = {
  readonly record: AttemptRecord;
  readonly succeeded: boolean;
  /** 5xx, 429 and network errors may pass; anything else the receiver meant. */
  readonly retryable: boolean;
};

/** What an attempt needs besides the delivery and its hook. */
export type AttemptContext = {
  readonly credentials: { readonly secret: string; readonly authorization: string };
  readonly userAgent: string;
  readonly transport: OutboundOptions;
};

/**
 * Sends one delivery to its hook's receiver and describes the attempt as the delivery log keeps
 * it. Never throws: a receiver that cannot be reached is an attempt that failed, with its error.
 */
export async function attemptDelivery(
  delivery: ClaimedDelivery,
  { hook }: StoredHook,
  context: AttemptContext,
): Promise<AttemptResult> {
  const request = buildHookRequest({
    type: hook.type,
    url: hook.url,
    httpMethod: hook.httpMethod,
    contentType: hook.contentType,
    secret: context.credentials.secret,
    authorization: context.credentials.authorization,
    deliveryId: delivery.id,
    event: delivery.event,
    eventType: delivery.eventType,
    payload: delivery.payload,
    userAgent: context.userAgent,
  });
  const started = performance.now();
  const base = {
    requestUrl: request.url,
    requestHeaders: recordableHeaders(request.headers),
    requestBody: request.body,
  };
  try {
    const answer = await sendOutbound(
      { ...request, body: Buffer.from(request.body, 'utf8') },
      context.transport,
    );
    return {
      succeeded: answer.status >= 200 && answer.status < 300,
      retryable: answer.status >= 500 || answer.status === 429,
      record: {
        ...base,
        responseStatus: answer.status,
        responseHeaders: headerRecord(answer.headers),
        responseBody: answer.body.toString('utf8'),
        error: null,
        durationMs: Math.round(performance.now() - started),
      },
    };
  } catch (error) {
    return {
      succeeded: false,
      retryable: true,
      record: {
        ...base,
        responseStatus: null,
        responseHeaders: {},
        responseBody: null,
        error: error instanceof Error ? error.message : String(error),
        durationMs: Math.round(performance.now() - started),
      },
    };
  }
}

/** Header lines as the delivery log shows them: one entry per name, repeated values joined. */
function headerRecord(lines: ReadonlyArray<readonly [string, string]>): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [name, value] of lines) {
    record[name] = name in record ? `${record[name]}, ${value}` : value;
  }
  return record;
}
