import manifest from '../package.json' with { type: 'json' };

/** Kiln's own version (shown in the page footer); distinct from the forge API version. */
export const KILN_VERSION: string = manifest.version;
