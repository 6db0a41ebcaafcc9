import { type HttpContext, send } from '../internal/http.ts';
import type { RequestOptions } from '../options.ts';
import type {
  AgentSessionList,
  AgentSessionListQuery,
  AgentSessionReport,
  AgentSessionSummary,
  AgentSessionTranscript,
} from '../types/sessions.ts';

/** `/v1/agent-sessions`: find Agent sessions, read their reports, transcripts and recordings. */
export class AgentSessions {
  /** @internal */
  constructor(private readonly http: HttpContext) {}

  /**
   * State, timing, transcript count and usage of an Agent session.
   *
   * @example
   * ```ts
   * const report = await client.agentSessions.get(sessionId);
   * console.log(report.state, report.usage.charge.credits);
   * ```
   */
  async get(sessionId: string, options?: RequestOptions): Promise<AgentSessionReport> {
    const call = {
      method: 'GET',
      path: `/v1/agent-sessions/${encodeURIComponent(sessionId)}`,
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<AgentSessionReport>(this.http, call, options)).body;
  }

  /**
   * One page of the environment's sessions, newest first, each with its report and end
   * user; filter by `agent_id` or `end_user_id`, page with `cursor` = `next_cursor`.
   *
   * @example
   * ```ts
   * const { sessions } = await client.agentSessions.list({ end_user_id: userId, limit: 10 });
   * ```
   */
  async list(
    query: AgentSessionListQuery = {},
    options?: RequestOptions,
  ): Promise<AgentSessionList> {
    const call = {
      method: 'GET',
      path: '/v1/agent-sessions',
      query: { ...query },
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<AgentSessionList>(this.http, call, options)).body;
  }

  /**
   * Every session that matches, page by page, newest first.
   *
   * @example
   * ```ts
   * for await (const session of client.agentSessions.listAll({ agent_id: agentId })) {
   *   console.log(session.session_id, session.state);
   * }
   * ```
   */
  async *listAll(
    query: Omit<AgentSessionListQuery, 'cursor'> = {},
    options?: RequestOptions,
  ): AsyncGenerator<AgentSessionSummary> {
    let cursor: string | undefined;
    do {
      const page = await this.list({ ...query, ...(cursor ? { cursor } : {}) }, options);
      yield* page.sessions;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  /**
   * The session's persisted transcript, oldest turn first (it grows while the session runs).
   *
   * @example
   * ```ts
   * const { transcript } = await client.agentSessions.transcript(sessionId);
   * for (const turn of transcript) console.log(`${turn.role}: ${turn.text}`);
   * ```
   */
  async transcript(sessionId: string, options?: RequestOptions): Promise<AgentSessionTranscript> {
    const call = {
      method: 'GET',
      path: `/v1/agent-sessions/${encodeURIComponent(sessionId)}/transcript`,
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<AgentSessionTranscript>(this.http, call, options)).body;
  }

  /**
   * The session's recording (stereo Ogg Opus, 48 kHz: the user left, the Agent right), for
   * an Agent with `recording_enabled` once the session has ended; `not_found` otherwise.
   *
   * @example
   * ```ts
   * const report = await client.agentSessions.get(sessionId);
   * if (report.recording) await writeFile('call.ogg', await client.agentSessions.recording(sessionId));
   * ```
   */
  async recording(sessionId: string, options?: RequestOptions): Promise<Uint8Array> {
    const call = {
      method: 'GET',
      path: `/v1/agent-sessions/${encodeURIComponent(sessionId)}/recording`,
      expect: 'bytes',
      idempotent: true,
    } as const;
    return (await send<Uint8Array>(this.http, call, options)).body;
  }

  /** Deletes the session's recording; the session and its transcript stay. */
  async deleteRecording(sessionId: string, options?: RequestOptions): Promise<void> {
    const call = {
      method: 'DELETE',
      path: `/v1/agent-sessions/${encodeURIComponent(sessionId)}/recording`,
      expect: 'none',
      idempotent: true,
    } as const;
    await send<void>(this.http, call, options);
  }
}
