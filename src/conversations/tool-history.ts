import type { LlmMessage } from '../llm/provider.ts';

/**
 * The tool calls of text conversations kept in their history: an answer whose turn called
 * tools stores each round (the text the model said with its calls, the calls, their
 * results), and later turns replay them to the model in the vendors' own shapes (the
 * adapters map assistant `toolCalls` and `tool` messages to Chat Completions `tool_calls`
 * and `role: tool`, or Anthropic `tool_use` and `tool_result` blocks), so a result the
 * model already has is not fetched again.
 */

/** One tool call of a stored round and the result the model read. */
export interface StoredToolCall {
  id: string;
  name: string;
  /** JSON text of the arguments, exactly as the model produced it. */
  arguments: string;
  /** The result text the model read. */
  output: string;
  ok: boolean;
}

/** One model call of a turn that asked for tools: what it said, and the calls it made. */
export interface StoredToolRound {
  text: string;
  calls: StoredToolCall[];
}

/** Model-visible messages the history of one turn may expand to (the newest kept). */
export const HISTORY_MESSAGES = 200;
/**
 * Characters of tool arguments and results replayed per turn: a search result can be
 * 16,000 characters, and every later turn pays for what it replays.
 */
export const TOOL_HISTORY_MAX_CHARS = 32_000;

/** One message of the history as the model will see it. */
export interface HistoryTurn {
  role: 'user' | 'assistant';
  /** The whole text of the message (for an answer, all its rounds' text and the rest). */
  text: string;
  /** The tool rounds replayed before the answer's last text; absent when none are. */
  toolRounds?: readonly StoredToolRound[];
}

export function serializeToolRounds(rounds: readonly StoredToolRound[]): string | null {
  return rounds.length === 0 ? null : JSON.stringify(rounds);
}

export function parseToolRounds(json: string | null): StoredToolRound[] | null {
  return json === null ? null : (JSON.parse(json) as StoredToolRound[]);
}

/**
 * The newest messages that fit the context budget, oldest first: at most
 * {@link HISTORY_MESSAGES} model messages, the tool rounds of the newest answers while
 * they fit both that count and {@link TOOL_HISTORY_MAX_CHARS}. An answer whose rounds do
 * not fit is replayed as its text alone, and so is every older one: a call is always
 * dropped with its result, never one without the other.
 */
export function fitHistory(
  messages: readonly {
    role: 'user' | 'assistant';
    text: string;
    toolRounds: StoredToolRound[] | null;
  }[],
): HistoryTurn[] {
  const kept: HistoryTurn[] = [];
  let count = 0;
  let toolChars = 0;
  let replayTools = true;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (!message) continue;
    const turn: HistoryTurn = { role: message.role, text: message.text };
    let needed = 1;
    if (replayTools && message.toolRounds) {
      const rounds = message.toolRounds;
      const extra = rounds.reduce((sum, round) => sum + 1 + round.calls.length, 0);
      const chars = rounds.reduce(
        (sum, round) =>
          sum + round.calls.reduce((n, call) => n + call.arguments.length + call.output.length, 0),
        0,
      );
      if (count + 1 + extra <= HISTORY_MESSAGES && toolChars + chars <= TOOL_HISTORY_MAX_CHARS) {
        turn.toolRounds = rounds;
        needed += extra;
        toolChars += chars;
      } else {
        replayTools = false;
      }
    }
    if (count + needed > HISTORY_MESSAGES) break;
    count += needed;
    kept.push(turn);
  }
  return kept.reverse();
}

/**
 * The model messages of one history turn: for an answer with tool rounds, each round's
 * text with its calls, then the calls' results, then the text the answer ended with (its
 * whole text is the rounds' texts followed by that last text).
 */
export function historyMessages(turn: HistoryTurn): LlmMessage[] {
  if (turn.role === 'user') return [{ role: 'user', content: turn.text }];
  const rounds = turn.toolRounds ?? [];
  const messages: LlmMessage[] = [];
  let said = 0;
  for (const round of rounds) {
    messages.push({
      role: 'assistant',
      content: round.text,
      toolCalls: round.calls.map((call) => ({
        id: call.id,
        name: call.name,
        arguments: call.arguments,
      })),
    });
    for (const call of round.calls) {
      messages.push({ role: 'tool', toolCallId: call.id, content: call.output });
    }
    said += round.text.length;
  }
  messages.push({ role: 'assistant', content: turn.text.slice(said) });
  return messages;
}
