import type { Migration } from 'kysely';
import * as foundation from './0001-foundation.ts';
import * as synthesisLedger from './0002-synthesis-ledger.ts';
import * as voices from './0003-voices.ts';
import * as workspaceNames from './0004-workspace-names.ts';
import * as agents from './0005-agents.ts';
import * as conversations from './0006-conversations.ts';
import * as agentSessions from './0007-agent-sessions.ts';
import * as creditGrants from './0008-credit-grants.ts';
import * as applicationSessions from './0009-application-sessions.ts';
import * as operatorSessions from './0010-operator-sessions.ts';
import * as voiceCloning from './0011-voice-cloning.ts';
import * as agentSessionLatency from './0012-agent-session-latency.ts';
import * as voiceGenerations from './0013-voice-generations.ts';
import * as agentLanguage from './0014-agent-language.ts';
import * as sessionRecordings from './0015-session-recordings.ts';
import * as webhooks from './0016-webhooks.ts';
import * as liveSessionSweep from './0017-live-session-sweep.ts';
import * as agentDocuments from './0018-agent-documents.ts';
import * as agentMemories from './0019-agent-memories.ts';
import * as googleCalendar from './0020-google-calendar.ts';
import * as realtimeTranscription from './0021-realtime-transcription.ts';
import * as streamingSessions from './0022-streaming-sessions.ts';
import * as llmCallsWithoutAgent from './0023-llm-calls-without-agent.ts';
import * as keyCreators from './0024-key-creators.ts';
import * as deploymentSettings from './0025-deployment-settings.ts';
import * as toolHistoryAndSearchBilling from './0029-tool-history-and-search-billing.ts';
import * as liveSessionHandover from './0031-live-session-handover.ts';
import * as sessionInputMode from './0032-session-input-mode.ts';
import * as handoverState from './0033-handover-state.ts';

/** Every migration, in order. Names are permanent once released. */
export const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-synthesis-ledger': synthesisLedger,
  '0003-voices': voices,
  '0004-workspace-names': workspaceNames,
  '0005-agents': agents,
  '0006-conversations': conversations,
  '0007-agent-sessions': agentSessions,
  '0008-credit-grants': creditGrants,
  '0009-application-sessions': applicationSessions,
  '0010-operator-sessions': operatorSessions,
  '0011-voice-cloning': voiceCloning,
  '0012-agent-session-latency': agentSessionLatency,
  '0013-voice-generations': voiceGenerations,
  '0014-agent-language': agentLanguage,
  '0015-session-recordings': sessionRecordings,
  '0016-webhooks': webhooks,
  '0017-live-session-sweep': liveSessionSweep,
  '0018-agent-documents': agentDocuments,
  '0019-agent-memories': agentMemories,
  '0020-google-calendar': googleCalendar,
  '0021-realtime-transcription': realtimeTranscription,
  '0022-streaming-sessions': streamingSessions,
  '0023-llm-calls-without-agent': llmCallsWithoutAgent,
  '0024-key-creators': keyCreators,
  '0025-deployment-settings': deploymentSettings,
  '0029-tool-history-and-search-billing': toolHistoryAndSearchBilling,
  '0031-live-session-handover': liveSessionHandover,
  '0032-session-input-mode': sessionInputMode,
  '0033-handover-state': handoverState,
};
