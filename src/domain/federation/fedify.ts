import { lazily } from '../../lib/lazily.ts';

/**
 * Fedify, loaded by the first piece of federation work that needs it (a signature to make or
 * check, a key to make or export, a JSON-LD context), not at start: with the ActivityStreams
 * vocabulary it brings it is some 40 MB of resident memory, which a server that is on by default
 * but never asked to federate should not hold. Everything else of federation (routes, stores,
 * the queue worker) runs without it.
 */
export const fedify = lazily(() => import('@fedify/fedify'));
