import type { ServiceImpl } from '@connectrpc/connect';
import type { PingService } from '../../gen/ping/v1/services_pb.js';

/**
 * `ping.v1.PingService`: runners call it, without credentials, until it answers before they
 * register. The reply is Gitea's greeting; runners ignore its text.
 */
export const pingService: ServiceImpl<typeof PingService> = {
  ping(request) {
    return { data: `Hello, ${request.data}!` };
  },
};
