/** Start-up is over: from now on V8 optimizes hot code again. Safe to call more than once. */
export function startedUp(): void;
/** Collects start-up's garbage once, on the next turn of the event loop (see start-up.js). */
export function releaseStartUpGarbage(): void;
