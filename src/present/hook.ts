import type { Webhook } from '../domain/webhooks/webhook.types.ts';
import { rfc3339 } from '../lib/time.ts';
import type { ApiHook } from './schemas/hook.ts';

/**
 * Gitea's Hook. `config` holds the URL, content type and method as Gitea lists them; the secret
 * and the authorization header are never shown again once saved.
 */
export function toApiHook(hook: Webhook): ApiHook {
  return {
    id: hook.wireId,
    type: hook.type,
    branch_filter: hook.branchFilter,
    config: {
      url: hook.url,
      content_type: hook.contentType,
      http_method: hook.httpMethod.toLowerCase(),
    },
    events: [...hook.events],
    authorization_header: '',
    active: hook.active,
    updated_at: rfc3339(hook.updatedAt),
    created_at: rfc3339(hook.createdAt),
  };
}
