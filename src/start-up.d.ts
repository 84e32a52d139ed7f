/** Start-up is over: from now on V8 optimizes hot code again. Safe to call more than once. */
export function startedUp(): void;
