// One list of teardowns for a thing started in steps (the bridge): each step adds its own as it
// starts, and a failed start and a close unwind the same list, last added first.

type Teardown = () => unknown;

interface Entry {
  name: string;
  run: Teardown | null;
}

export interface TeardownFailure {
  name: string;
  error: unknown;
}

export interface UnwindHooks {
  /** Before each teardown runs (the bridge logs it at debug level). */
  before?(name: string): void;
  /** A teardown threw or rejected; the ones after it still run. */
  failed?(name: string, error: unknown): void;
}

export class TeardownList {
  readonly #entries: Entry[] = [];
  #unwinding: Promise<TeardownFailure[]> | null = null;

  add(name: string, run: Teardown): void {
    this.#entries.push({ name, run });
  }

  /**
   * Keeps a place on the list for a part that starts later but must close after the parts added
   * in between; the returned function fills it. A place never filled is skipped.
   */
  reserve(name: string): (run: Teardown) => void {
    const entry: Entry = { name, run: null };
    this.#entries.push(entry);
    return (run) => {
      entry.run = run;
    };
  }

  /**
   * Runs every teardown once, last added first, each awaited before the next. Resolves to what
   * failed; never rejects. A second call returns the first one's promise.
   */
  unwind(hooks: UnwindHooks = {}): Promise<TeardownFailure[]> {
    this.#unwinding ??= this.#run(hooks);
    return this.#unwinding;
  }

  async #run(hooks: UnwindHooks): Promise<TeardownFailure[]> {
    const failures: TeardownFailure[] = [];
    for (const { name, run } of [...this.#entries].reverse()) {
      if (run === null) continue;
      try {
        hooks.before?.(name);
        await run();
      } catch (error) {
        failures.push({ name, error });
        hooks.failed?.(name, error);
      }
    }
    return failures;
  }
}
