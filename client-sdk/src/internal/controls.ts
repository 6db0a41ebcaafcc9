import { type LocalParticipant, RpcError } from 'livekit-client';
import { ConversationError } from '../errors.ts';

/**
 * How long one control waits for the Agent's reply. A push-to-talk commit is answered once
 * the held turn's audio has arrived at the worker (a 300 ms tail, plus up to 5 s of backlog on
 * a busy worker); the margin keeps a slow machine from turning a committed turn into a timeout.
 */
const CONTROL_TIMEOUT_MS = 20_000;

/**
 * Runs Agent controls one at a time in call order, so `startPushToTalk()` followed by
 * `commitPushToTalk()` reaches the Agent in that order even when the app does not await.
 * Each promise settles when its own control has been answered (after the ones before it).
 */
export class ControlQueue {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task, task);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}

/** One RPC of docs/agent-protocol.md to the Agent; replies `{"ok": true}`. */
export async function callAgent(
  participant: LocalParticipant,
  agentIdentity: string,
  method: string,
  payload: object,
): Promise<void> {
  let reply: string;
  try {
    reply = await participant.performRpc({
      destinationIdentity: agentIdentity,
      method,
      payload: JSON.stringify(payload),
      responseTimeout: CONTROL_TIMEOUT_MS,
    });
  } catch (error) {
    throw rpcFailure(method, error);
  }
  let ok = false;
  try {
    ok = (JSON.parse(reply) as { ok?: unknown }).ok === true;
  } catch {
    ok = false;
  }
  if (!ok) {
    throw new ConversationError('protocol_error', `The Agent answered ${method} without ok.`);
  }
}

/** True when the Agent has not registered its methods yet (it is still starting). */
export function isNotReady(error: unknown): boolean {
  const cause = error instanceof ConversationError ? error.cause : error;
  return (
    cause instanceof RpcError &&
    (cause.code === RpcError.ErrorCode.UNSUPPORTED_METHOD ||
      cause.code === RpcError.ErrorCode.RECIPIENT_NOT_FOUND)
  );
}

function rpcFailure(method: string, error: unknown): ConversationError {
  if (!(error instanceof RpcError)) {
    return new ConversationError('control_failed', `${method} failed: ${String(error)}`, {
      cause: error,
    });
  }
  if (error.code === RpcError.ErrorCode.APPLICATION_ERROR) {
    // The worker's errors carry `{code, detail}` as JSON in the message.
    try {
      const parsed = JSON.parse(error.message) as { code?: unknown; detail?: unknown };
      if (typeof parsed.code === 'string') {
        const detail = typeof parsed.detail === 'string' ? parsed.detail : `${method} failed.`;
        return new ConversationError(parsed.code, detail, { cause: error });
      }
    } catch {
      // not our JSON: fall through
    }
  }
  if (
    error.code === RpcError.ErrorCode.RECIPIENT_DISCONNECTED ||
    error.code === RpcError.ErrorCode.RECIPIENT_NOT_FOUND
  ) {
    return new ConversationError('agent_unavailable', `The Agent is gone (${method}).`, {
      retryable: true,
      cause: error,
    });
  }
  const retryable =
    error.code === RpcError.ErrorCode.RESPONSE_TIMEOUT ||
    error.code === RpcError.ErrorCode.CONNECTION_TIMEOUT ||
    error.code === RpcError.ErrorCode.SEND_FAILED;
  return new ConversationError('control_failed', `${method} failed: ${error.message}`, {
    retryable,
    cause: error,
  });
}
