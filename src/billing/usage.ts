import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Environment } from '../app/config.ts';
import type { Database, SynthesisRequestsTable, SynthesisStatus } from '../db/schema.ts';
import { inScope } from '../db/tenant-scope.ts';
import { MILLICREDITS_PER_CREDIT } from './pricing.ts';

/** One synthesis request as the dashboard's Usage page lists it. */
export interface RecentRequest {
  requestId: string;
  createdAt: string;
  voiceId: string;
  /** Characters of the request's text (reserved for at its start). */
  characters: number;
  /** What the request was charged, in credits (0 while it runs). */
  credits: number;
  status: SynthesisStatus;
  /** `key:<key prefix>` (the key id when the key row is gone) or the operator's email. */
  caller: string | null;
}

/** Where a Usage list pages from: the row its previous page ended with. */
export interface UsageCursor {
  createdAt: string;
  requestId: string;
}

/**
 * When the row `requestId` of `table` (synthesis requests or language-model calls) was
 * created, for paging past it; null when the workspace has no such row in `environment`.
 */
export async function usageCursor(
  db: Kysely<Database>,
  table: 'synthesis_requests' | 'llm_requests',
  workspaceId: string,
  environment: Environment,
  requestId: string,
): Promise<UsageCursor | null> {
  const row = await db
    .selectFrom(table)
    .select(['request_id', 'created_at'])
    .where('request_id', '=', requestId)
    .$call(inScope({ workspaceId, environment }))
    .executeTakeFirst();
  return row ? { createdAt: row.created_at, requestId: row.request_id } : null;
}

/**
 * The newest synthesis requests of a workspace in one environment, newest first; with
 * `before` (from {@link usageCursor}), those strictly older than it in
 * (created_at, request_id) order.
 */
export async function recentRequests(
  db: Kysely<Database>,
  workspaceId: string,
  environment: Environment,
  limit = 50,
  before?: UsageCursor,
): Promise<RecentRequest[]> {
  const rows = await db
    .selectFrom('synthesis_requests as r')
    .leftJoin('api_keys as k', 'k.id', 'r.api_key_id')
    .select([
      'r.request_id',
      'r.created_at',
      'r.voice_id',
      'r.chars_requested',
      'r.cost_millicredits',
      'r.status',
      'r.api_key_id',
      'r.operator_email',
      'k.display_prefix',
    ])
    .$call(inScope({ workspaceId, environment }, 'r'))
    .$if(before !== undefined, (query) => query.where((eb) => olderThan(eb, before as UsageCursor)))
    .orderBy('r.created_at', 'desc')
    .orderBy('r.request_id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    requestId: row.request_id,
    createdAt: row.created_at,
    voiceId: row.voice_id,
    characters: row.chars_requested,
    credits: Number(row.cost_millicredits) / MILLICREDITS_PER_CREDIT,
    status: row.status,
    caller: keyCaller(row.api_key_id, row.display_prefix) ?? row.operator_email ?? null,
  }));
}

/** One language-model call (text conversations) as the dashboard's Usage page lists it. */
export interface RecentModelCall {
  requestId: string;
  createdAt: string;
  /** Null for a call of no Agent (the translation preview). */
  agentId: string | null;
  /** The Agent's slug; null once the Agent was deleted. */
  agentSlug: string | null;
  /** What made the call: `messages` (text conversations) or `translation` (the preview). */
  source: string;
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  /** What the call was charged, in credits (0 while it runs). */
  credits: number;
  status: string;
  /** `key:<key prefix>` (the key id when the key row is gone); null without a key. */
  caller: string | null;
}

/**
 * The newest language-model calls of a workspace in one environment, newest first; with
 * `before` (from {@link usageCursor}), those strictly older than it.
 */
export async function recentModelCalls(
  db: Kysely<Database>,
  workspaceId: string,
  environment: Environment,
  limit = 50,
  before?: UsageCursor,
): Promise<RecentModelCall[]> {
  const rows = await db
    .selectFrom('llm_requests as r')
    .leftJoin('api_keys as k', 'k.id', 'r.api_key_id')
    .leftJoin('agents as a', 'a.id', 'r.agent_id')
    .select([
      'r.request_id',
      'r.created_at',
      'r.agent_id',
      'a.slug',
      'r.source',
      'r.llm_provider',
      'r.llm_model',
      'r.input_tokens',
      'r.output_tokens',
      'r.cost_millicredits',
      'r.status',
      'r.api_key_id',
      'k.display_prefix',
    ])
    .$call(inScope({ workspaceId, environment }, 'r'))
    .$if(before !== undefined, (query) => query.where((eb) => olderThan(eb, before as UsageCursor)))
    .orderBy('r.created_at', 'desc')
    .orderBy('r.request_id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    requestId: row.request_id,
    createdAt: row.created_at,
    agentId: row.agent_id,
    agentSlug: row.slug,
    source: row.source,
    provider: row.llm_provider,
    model: row.llm_model,
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
    credits: Number(row.cost_millicredits) / MILLICREDITS_PER_CREDIT,
    status: row.status,
    caller: keyCaller(row.api_key_id, row.display_prefix),
  }));
}

/** `key:<key prefix>` (the key id when the key row is gone); null without a key. */
function keyCaller(apiKeyId: string | null, prefix: string | null): string | null {
  return apiKeyId ? `key:${prefix ?? apiKeyId}` : null;
}

/** Rows strictly older than `before` in (created_at, request_id) order. */
function olderThan(
  eb: ExpressionBuilder<{ r: Pick<SynthesisRequestsTable, 'created_at' | 'request_id'> }, 'r'>,
  before: UsageCursor,
) {
  return eb.or([
    eb('r.created_at', '<', before.createdAt),
    eb.and([eb('r.created_at', '=', before.createdAt), eb('r.request_id', '<', before.requestId)]),
  ]);
}
