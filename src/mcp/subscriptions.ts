// A session's resource subscriptions (decisions §14): notifications/resources/updated when what its
// credential may see at a URI changed, at most once a second per URI. What may have changed is
// told by the credential's own view of the world (credential.ts followWorld): an event it may see,
// or the tick moving. Then:
// - world://events is updated when an event newer than the session's cursor arrived;
// - world://capabilities when the bridge's capabilities changed;
// - world://state and world://map.png when the world moved (their content follows the tick);
// - world://kingdoms and the templates are read again through the bridge (fogged like any read)
//   and updated only when their content differs from the last read.
// Each subscription holds a place of its credential's share (credential.ts takeSubscription).
import { createHash } from 'node:crypto';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { Lease } from '../admission/capped-leases.ts';
import type { BridgeEvent } from '../client/events.ts';
import { LIMITS } from '../limits.ts';
import type { Credential } from './credential.ts';
import type { Target } from './resources.ts';

export interface SubscriptionHooks {
  credential: Credential;
  /** The session's token digest: who takes the place. */
  tokenDigest: string;
  /** Reads a resource as the session would (for the kinds compared by content). */
  read(uri: string, target: Target): Promise<ReadResourceResult>;
  /** Sends notifications/resources/updated. */
  updated(uri: string): void;
  /** The session's world://events cursor now (undefined before the first read). */
  cursor(): number | undefined;
  /** Told when a re-read fails (for the server's log). */
  failed(uri: string, error: Error): void;
}

interface Subscription {
  uri: string;
  target: Target;
  lease: Lease;
  /** When it was last checked (read again, or notified). */
  checkedAt: number;
  timer: NodeJS.Timeout | undefined;
  digest: string | undefined;
  checking: boolean;
}

/** Kinds that change nothing a world resource shows. */
const QUIET_KINDS = new Set(['message', 'turn_changed', 'objective_changed', 'enabled_changed', 'agents_reloaded', 'agents_reload_failed']);
/** A command of these categories changes nothing: its audit record is no reason to look again (our own re-reads make them). */
const READ_CATEGORIES = new Set(['read', 'discovery', 'meta']);

export class Subscriptions {
  readonly #hooks: SubscriptionHooks;
  readonly #subscriptions = new Map<string, Subscription>();
  #unfollow: (() => void) | null = null;

  constructor(hooks: SubscriptionHooks) {
    this.#hooks = hooks;
  }

  get size(): number {
    return this.#subscriptions.size;
  }

  /** Takes a place and starts watching; refused (the failure's message) over the credential's share. */
  async subscribe(uri: string, target: Target): Promise<void> {
    if (this.#subscriptions.has(uri)) return;
    const lease = this.#hooks.credential.takeSubscription(uri, this.#hooks.tokenDigest);
    if ('ok' in lease) throw Object.assign(new Error(lease.message), { code: -32000, data: { code: lease.code } });
    const subscription: Subscription = { uri, target, lease, checkedAt: 0, timer: undefined, digest: undefined, checking: false };
    this.#subscriptions.set(uri, subscription);
    this.#unfollow ??= this.#hooks.credential.followWorld((event) => this.#world(event));
    // The content compared against later: what the resource shows now.
    if (comparedByContent(target)) await this.#check(subscription, false);
  }

  unsubscribe(uri: string): void {
    const subscription = this.#subscriptions.get(uri);
    if (subscription === undefined) return;
    this.#end(subscription);
    if (this.#subscriptions.size === 0) {
      this.#unfollow?.();
      this.#unfollow = null;
    }
  }

  /** The bridge's capabilities changed. */
  capabilitiesChanged(): void {
    for (const subscription of this.#subscriptions.values()) if (subscription.target.kind === 'capabilities') this.#trigger(subscription);
  }

  close(): void {
    for (const subscription of [...this.#subscriptions.values()]) this.#end(subscription);
    this.#unfollow?.();
    this.#unfollow = null;
  }

  #world(event: BridgeEvent | undefined): void {
    const moved = event === undefined || movesWorld(event, this.#hooks.credential);
    for (const subscription of this.#subscriptions.values()) {
      const kind = subscription.target.kind;
      if (kind === 'events') {
        const cursor = this.#hooks.cursor();
        if (event !== undefined && (cursor === undefined || event.seq > cursor)) this.#trigger(subscription);
      } else if (kind !== 'capabilities' && moved) {
        this.#trigger(subscription);
      }
    }
  }

  /** Something may have changed: check now, or once a second has passed since the last check. */
  #trigger(subscription: Subscription): void {
    if (subscription.timer !== undefined) return;
    const wait = Math.max(0, subscription.checkedAt + LIMITS.mcpResourceUpdateMs - Date.now());
    subscription.timer = setTimeout(() => {
      subscription.timer = undefined;
      void this.#check(subscription, true);
    }, wait);
  }

  async #check(subscription: Subscription, notify: boolean): Promise<void> {
    if (subscription.checking) return;
    subscription.checkedAt = Date.now();
    if (!comparedByContent(subscription.target)) {
      if (notify) this.#hooks.updated(subscription.uri);
      return;
    }
    subscription.checking = true;
    try {
      const content = await this.#hooks.read(subscription.uri, subscription.target);
      const digest = createHash('sha256').update(JSON.stringify(content.contents)).digest('base64');
      const changed = subscription.digest !== undefined && digest !== subscription.digest;
      subscription.digest = digest;
      if (notify && changed && this.#subscriptions.get(subscription.uri) === subscription) this.#hooks.updated(subscription.uri);
    } catch (err) {
      this.#hooks.failed(subscription.uri, err as Error);
    } finally {
      subscription.checking = false;
    }
  }

  #end(subscription: Subscription): void {
    clearTimeout(subscription.timer);
    subscription.lease.release();
    this.#subscriptions.delete(subscription.uri);
  }
}

function comparedByContent(target: Target): boolean {
  return target.kind === 'kingdoms' || target.kind === 'kingdom' || target.kind === 'tile';
}

/** Whether an event the credential sees may have changed what a world resource shows. */
function movesWorld(event: BridgeEvent, credential: Credential): boolean {
  if (QUIET_KINDS.has(event.kind)) return false;
  if (event.kind !== 'command') return true;
  if (event.ok !== true) return false;
  const command = credential.view.capabilities.commands.find((c) => c.name === event.name);
  return command === undefined || !READ_CATEGORIES.has(command.category);
}
