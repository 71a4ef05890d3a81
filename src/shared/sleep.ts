export interface SleepOptions {
  /** Aborting it ends the wait at once: the promise rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** The timer does not keep the process alive: for waits that only bound a shutdown step. */
  unref?: boolean;
}

/** Resolves after `ms`; one helper for every wait of the bridge and its clients. */
export function sleep(ms: number, options: SleepOptions = {}): Promise<void> {
  const { signal } = options;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    if (options.unref) timer.unref();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
