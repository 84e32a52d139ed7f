export type ZombieSweep = {
  /** Stops the timer and waits for a sweep in progress, so the database can close after. */
  stop(): Promise<void>;
};

/**
 * Runs `sweepZombies`, `cancelAbandoned` and then `afterwards` (log retention) every `intervalMs`. A sweep never overlaps the previous one in this
 * process; failures (the database away for a moment) go to `onError` and the next tick tries
 * again. The timer does not keep the process alive.
 */
export function startZombieSweep(
  tasks: { sweepZombies(): Promise<unknown>; cancelAbandoned(): Promise<unknown> },
  intervalMs: number,
  onError: (error: unknown) => void,
  afterwards: () => Promise<unknown> = async () => undefined,
): ZombieSweep {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running !== undefined) return;
    running = tasks
      .sweepZombies()
      .then(() => tasks.cancelAbandoned())
      .then(afterwards)
      .then(
        () => undefined,
        (error: unknown) => onError(error),
      )
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
