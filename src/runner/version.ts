/**
 * The version the runner declares to servers: Kiln's own, since the runner ships with it.
 * Read from package.json directly, so the runner depends on nothing else in src/.
 */
import manifest from '../../package.json' with { type: 'json' };

/** Sent as `version` in Register and Declare. */
export const RUNNER_VERSION: string = `v${manifest.version}`;

/** Sent as `capabilities` in Register and Declare: this runner obeys cancellation. */
export const RUNNER_CAPABILITIES: readonly string[] = ['cancelling'];
