/**
 * Connect clients for `ping.v1` and `runner.v1` as the Go runners use them: binary protobuf over
 * HTTP/1.1 at `{instance}/api/actions`, with `x-runner-uuid`/`x-runner-token` on every call once
 * registered.
 */
import { type Client, createClient, type Interceptor } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { PingService } from '../gen/ping/v1/services_pb.js';
import { RunnerService } from '../gen/runner/v1/services_pb.js';
import { RUNNER_VERSION } from './version.ts';

/** The identity a registered runner authenticates with. */
export type RunnerCredentials = { readonly uuid: string; readonly token: string };

export type RunnerClients = {
  readonly ping: Client<typeof PingService>;
  readonly runner: Client<typeof RunnerService>;
};

/** `https://host/sub/` → `https://host/sub/api/actions`. */
export function actionsBaseUrl(instance: string): string {
  return `${instance.replace(/\/+$/, '')}/api/actions`;
}

/** Clients for an instance; with credentials every call carries the runner headers. */
export function runnerClients(instance: string, credentials?: RunnerCredentials): RunnerClients {
  const identify: Interceptor = (next) => (request) => {
    request.header.set('user-agent', `kiln-runner/${RUNNER_VERSION}`);
    if (credentials) {
      request.header.set('x-runner-uuid', credentials.uuid);
      request.header.set('x-runner-token', credentials.token);
    }
    return next(request);
  };
  const transport = createConnectTransport({
    baseUrl: actionsBaseUrl(instance),
    httpVersion: '1.1',
    useBinaryFormat: true,
    interceptors: [identify],
  });
  return {
    ping: createClient(PingService, transport),
    runner: createClient(RunnerService, transport),
  };
}
