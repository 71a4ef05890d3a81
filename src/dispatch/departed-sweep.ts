import { LIMITS } from '../limits.ts';

/**
 * decisions §14: a look for requests whose client has gone, every LIMITS.departedSweepMs while any
 * is still watched. `look` withdraws what it may and says whether something is left to watch.
 */
export class DepartedSweep {
  readonly #look: () => boolean;
  #timer: NodeJS.Timeout | null = null;

  constructor(look: () => boolean) {
    this.#look = look;
  }

  /** Arms the next look, unless one is armed already. */
  watch(): void {
    if (this.#timer !== null) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (this.#look()) this.watch();
    }, LIMITS.departedSweepMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
