import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { checkConfig, parseToml } from './load.ts';

export interface KillSwitch {
  readonly enabled: boolean;
  /** Re-read now (the timer calls this every reload interval). */
  reload(): Promise<void>;
  stop(): void;
}

/**
 * spec: `enabled` is re-read every 2 s. Polling by path (not fs.watch) follows editors that save by
 * rename and costs one small read. A broken file keeps the last good value and warns once per
 * change of its content (decisions §2), never a crash.
 */
export function watchKillSwitch(options: {
  path: string;
  initial: boolean;
  intervalMs: number;
  log: Logger;
  onChange: (enabled: boolean) => void;
}): KillSwitch {
  let enabled = options.initial;
  let lastText: string | undefined;
  let reading = false;

  async function reload(): Promise<void> {
    if (reading) return;
    reading = true;
    try {
      let text: string;
      try {
        text = await readFile(options.path, 'utf8');
      } catch (err) {
        text = `\0unreadable: ${(err as NodeJS.ErrnoException).code}`;
      }
      if (text === lastText) return;
      lastText = text;
      const next = readEnabled(options.path, text);
      if (typeof next === 'string') {
        options.log.warn({ config: options.path, enabled }, `kill switch: ${next}; keeping enabled = ${enabled}`);
        return;
      }
      if (next !== enabled) {
        enabled = next;
        options.log.info({ enabled }, `kill switch: enabled = ${enabled}`);
        options.onChange(enabled);
      }
    } finally {
      reading = false;
    }
  }

  const timer = setInterval(() => void reload(), options.intervalMs);
  timer.unref();
  return {
    get enabled() {
      return enabled;
    },
    reload,
    stop: () => clearInterval(timer),
  };
}

/** The `enabled` value of a config text, or a description of why the text cannot be used. */
function readEnabled(path: string, text: string): boolean | string {
  if (text.startsWith('\0unreadable')) return `cannot read ${path} (${text.slice(13)})`;
  try {
    // Only a whole valid file counts: an empty or truncated one (an editor mid-save) is broken,
    // not a file that silently defaults `enabled` back to true.
    return checkConfig(path, parseToml(path, text)).enabled;
  } catch (err) {
    return (err as Error).message;
  }
}
