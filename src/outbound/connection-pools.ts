import https from 'node:https';
import { type HttpAgent, http } from '../lib/node-http.ts';

/** Keep-alive connection pools, one per scheme, for a sender that reaches the same peers often. */
export type ConnectionPools = {
  readonly http: HttpAgent;
  readonly https: https.Agent;
  /** Closes every pooled connection. */
  destroy(): void;
};

/** Pools of at most `maxSockets` connections per peer, idle ones closed after 30 s. */
export function createConnectionPools(maxSockets: number): ConnectionPools {
  const options = { keepAlive: true, maxSockets, timeout: 30_000 };
  const pools = { http: new http.Agent(options), https: new https.Agent(options) };
  return {
    ...pools,
    destroy() {
      pools.http.destroy();
      pools.https.destroy();
    },
  };
}
