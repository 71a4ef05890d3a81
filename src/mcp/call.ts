// tools/call: one bridge command for one tool call (decisions §14). A call that carries
// `_meta.progressToken` gets notifications/progress while its command runs, mapped from the
// bridge's `progress` events for a Progress-Token of its own; notifications/cancelled aborts the
// HTTP request (and any BUSY wait between attempts), so a command that has not started never runs.
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ErrorCode, type CallToolResult, type ProgressToken, type ServerNotification, type ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { BridgeCallError, BridgeConnectionError } from '../client/errors.ts';
import type { ProgressEvent } from '../client/events.ts';
import { LIMITS } from '../limits.ts';
import type { Credential, LogLevel } from './credential.ts';
import { protocolError } from './resources.ts';
import { CAPABILITIES_TOOL, disabledResult, errorResult, successResult, unreachableResult } from './tools.ts';

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface CallContext {
  credential: Credential;
  prefix: string;
  /** The tools listed to the session now, for the message of an unknown name. */
  toolCount(): number;
  log(level: LogLevel, message: string): void;
}

export async function callTool(name: string, args: Record<string, unknown> | undefined, extra: Extra, ctx: CallContext): Promise<CallToolResult> {
  const { credential, prefix } = ctx;
  const caps = credential.view.capabilities;
  const command = name.startsWith(prefix) ? name.slice(prefix.length) : undefined;
  // spec rule 3: a command the game module cannot run has no tool; a call to it is answered with
  // the bridge's reason (capabilities.disabled_commands), not as an unknown tool.
  const disabled = command === undefined ? undefined : caps.disabled_commands?.find((d) => d.name === command);
  if (disabled !== undefined) return disabledResult(disabled.reason);
  if (command === undefined || (command !== CAPABILITIES_TOOL && !caps.commands.some((c) => c.name === command))) {
    // MCP: an unknown tool is a protocol error (-32602). A command the credential may not call is
    // not unknown: the bridge answers it (PERMISSION_DENIED), as an error result.
    throw protocolError(ErrorCode.InvalidParams, `unknown tool '${name}': tools/list has the ${ctx.toolCount()} tools`);
  }
  const progressToken = extra._meta?.progressToken;
  const reporter = progressToken === undefined ? undefined : new ProgressReporter(progressToken, extra);
  const ticket = reporter === undefined ? undefined : await credential.feed.progress((event) => reporter.report(event));
  try {
    if (command === CAPABILITIES_TOOL) return successResult(await credential.client.capabilities({ signal: extra.signal }));
    const success = await credential.client.request(command, args, {
      signal: extra.signal,
      ...(ticket?.token === undefined ? {} : { progressToken: ticket.token }),
      onRetry: (retry) => ctx.log('warning', `the bridge was busy: ${command} is sent again (retry ${retry.retry}) in ${retry.delayMs} ms`),
    });
    return successResult(success.result);
  } catch (err) {
    if (extra.signal.aborted) throw err;
    if (err instanceof BridgeCallError) return errorResult(err);
    if (err instanceof BridgeConnectionError) {
      ctx.log('error', `${command} failed: ${err.message}`);
      return unreachableResult(err.message);
    }
    throw err;
  } finally {
    // None after the result: the listener goes before the answer is sent.
    ticket?.done();
    reporter?.close();
  }
}

/**
 * notifications/progress for one call: at most one each LIMITS.mcpProgressIntervalMs (the latest
 * waits its turn), each further than the last (MCP: progress only increases), none once closed.
 */
class ProgressReporter {
  readonly #token: ProgressToken;
  readonly #extra: Extra;
  #sentAt = 0;
  #sent = -1;
  #pending: ProgressEvent | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(token: ProgressToken, extra: Extra) {
    this.#token = token;
    this.#extra = extra;
  }

  report(event: ProgressEvent): void {
    if (this.#closed || event.done <= this.#sent) return;
    this.#pending = event;
    const wait = this.#sentAt + LIMITS.mcpProgressIntervalMs - Date.now();
    if (wait <= 0) this.#flush();
    else this.#timer ??= setTimeout(() => this.#flush(), wait);
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#pending = undefined;
  }

  #flush(): void {
    this.#timer = undefined;
    const event = this.#pending;
    this.#pending = undefined;
    if (this.#closed || event === undefined || event.done <= this.#sent) return;
    this.#sent = event.done;
    this.#sentAt = Date.now();
    const message =
      event.phase === undefined ? `${event.name}: ${event.done} of ${event.total}` : `${event.name}: ${event.phase} (${event.done} of ${event.total})`;
    void this.#extra
      .sendNotification({ method: 'notifications/progress', params: { progressToken: this.#token, progress: event.done, total: event.total, message } })
      .catch(() => undefined);
  }
}
