import type { Config } from '../../config/config.ts';
import type { Federation, FederationDeps } from './federation.ts';

/** The settings federation needs: on, with the external URL and a secret key to seal keys. */
export type FederationSettings = Pick<Config, 'federation' | 'baseUrl' | 'secretKey'>;

/** Federation's address: `service.base-url`, else the loopback address `serve` derived. */
export function federationBaseUrl(config: FederationSettings): URL | undefined {
  return config.baseUrl ?? config.federation.loopbackBaseUrl;
}

/** Whether the configuration turns federation on (`Federation.fromConfig` says why these three). */
export function federationIsOn(config: FederationSettings): boolean {
  return (
    config.federation.enabled &&
    federationBaseUrl(config) !== undefined &&
    Boolean(config.secretKey)
  );
}

/**
 * Builds federation when the configuration turns it on, and only then loads its modules. Fedify
 * itself waits longer still, for the first work that needs it (`fedify.ts`).
 */
export async function openFederation(deps: FederationDeps): Promise<Federation | undefined> {
  if (!federationIsOn(deps.config)) return undefined;
  const { Federation } = await import('./federation.ts');
  return Federation.fromConfig(deps);
}
