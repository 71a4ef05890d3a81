// decisions §10: agents.json is read again when it changes (polled like the kill switch, and at
// once on SIGHUP). A valid file is handed on; an invalid one changes nothing and is named in one
// warning per change of its content. The mode never switches while running.
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { parseAgents, type AgentsConfig } from './agents.ts';

// Stand-ins for the text when there is none to read; no JSON file starts with NUL.
const ABSENT = '\0absent';
const UNREADABLE = '\0unreadable: ';

export interface AgentsWatch {
  /** Read now (the timer calls this every interval; SIGHUP calls it at once). */
  reload(): Promise<void>;
  stop(): void;
}

export function watchAgents(options: {
  path: string;
  /** Multi-agent mode (the file existed at startup). */
  multiAgent: boolean;
  /** The text the running session was built from (undefined in legacy mode). */
  initialText: string | undefined;
  maxConcurrent: number;
  intervalMs: number;
  log: Logger;
  onValid(config: AgentsConfig): void;
  /** The reason, one line without any token. */
  onInvalid(reason: string): void;
}): AgentsWatch {
  let lastText = options.initialText ?? ABSENT;
  // A read still in flight when stop() is called applies nothing: the session may be closing.
  let stopped = false;

  async function readOnce(): Promise<void> {
    let text: string;
    try {
      text = await readFile(options.path, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      text = code === 'ENOENT' ? ABSENT : `${UNREADABLE}${code}`;
    }
    if (stopped || text === lastText) return;
    lastText = text;
    if (!options.multiAgent) {
      // Creating agents.json in legacy mode: the mode is chosen at startup only.
      if (text !== ABSENT) options.log.warn({ agents: options.path }, `${options.path} appeared; multi-agent mode starts only with a restart of the bridge`);
      return;
    }
    if (text === ABSENT) {
      options.log.warn(
        { agents: options.path },
        `${options.path} was removed; the agents stay as they were (the bridge never falls back to legacy mode while running: restart it for that)`,
      );
      return;
    }
    if (text.startsWith(UNREADABLE)) return invalid(`${options.path}: cannot read (${text.slice(UNREADABLE.length)})`);
    let config: AgentsConfig;
    try {
      config = parseAgents(options.path, text, options.maxConcurrent);
    } catch (err) {
      return invalid((err as Error).message);
    }
    options.onValid(config);
  }

  function invalid(reason: string): void {
    options.log.warn({ agents: options.path }, `agents.json not applied, the last good one stays: ${reason}`);
    options.onInvalid(reason);
  }

  // One read at a time. A call while one runs (SIGHUP during a poll) queues one more read after
  // it, shared by every call that comes meanwhile, so a change made in between is never missed.
  let running: Promise<void> = Promise.resolve();
  let queued: Promise<void> | null = null;
  function reload(): Promise<void> {
    queued ??= running.then(() => {
      queued = null;
      return readOnce().catch((err: unknown) => options.log.error({ err }, 'agents.json reload failed'));
    });
    running = queued;
    return queued;
  }

  const timer = setInterval(() => void reload(), options.intervalMs);
  timer.unref();
  return {
    reload,
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}
