import type { ReactNode } from 'react';
import { AgentPage } from './pages/agent-page.tsx';
import { AgentSessionPage } from './pages/agent-sessions/agent-session-page.tsx';
import { AgentSessionsPage } from './pages/agent-sessions/agent-sessions-page.tsx';
import { AgentsPage } from './pages/agents.tsx';
import { ApiKeysPage } from './pages/api-keys.tsx';
import { CreateVoicePage } from './pages/create-voice.tsx';
import { MembersPage } from './pages/members.tsx';
import { PasswordPage } from './pages/password.tsx';
import { PlaygroundPage } from './pages/playground/playground-page.tsx';
import { ProviderAccountsPage } from './pages/provider-accounts.tsx';
import { StreamingSessionPage } from './pages/streaming-sessions/streaming-session-page.tsx';
import { StreamingSessionsPage } from './pages/streaming-sessions/streaming-sessions-page.tsx';
import { TranscriptionPage } from './pages/transcription/transcription-page.tsx';
import { TranscriptionSessionPage } from './pages/transcription/transcription-session-page.tsx';
import { UsagePage } from './pages/usage.tsx';
import { VoicePage } from './pages/voice-page.tsx';
import { VoicesPage } from './pages/voices.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';

/** A dashboard page: a path pattern (`:name` segments) and what it renders. */
export interface PageRoute {
  pattern: string;
  render: (params: Record<string, string>) => ReactNode;
}

/** Every page, most specific first. */
export const PAGE_ROUTES: PageRoute[] = [
  { pattern: '/voices/new', render: () => <CreateVoicePage /> },
  // /voices/new is matched before /voices/:voiceId
  { pattern: '/voices/:voiceId', render: (params) => <VoicePage voiceId={params.voiceId ?? ''} /> },
  { pattern: '/voices', render: () => <VoicesPage /> },
  { pattern: '/playground', render: () => <PlaygroundPage /> },
  {
    pattern: '/streaming-sessions/:sessionId',
    render: (params) => <StreamingSessionPage sessionId={params.sessionId ?? ''} />,
  },
  { pattern: '/streaming-sessions', render: () => <StreamingSessionsPage /> },
  {
    pattern: '/agents/:agentId',
    render: (params) => <AgentPage agentId={params.agentId ?? ''} />,
  },
  { pattern: '/agents', render: () => <AgentsPage /> },
  {
    pattern: '/sessions/:sessionId',
    render: (params) => <AgentSessionPage sessionId={params.sessionId ?? ''} />,
  },
  { pattern: '/sessions', render: () => <AgentSessionsPage /> },
  {
    pattern: '/transcription/:sessionId',
    render: (params) => <TranscriptionSessionPage sessionId={params.sessionId ?? ''} />,
  },
  { pattern: '/transcription', render: () => <TranscriptionPage /> },
  { pattern: '/keys', render: () => <ApiKeysPage /> },
  { pattern: '/webhooks', render: () => <WebhooksPage /> },
  { pattern: '/members', render: () => <MembersPage /> },
  { pattern: '/password', render: () => <PasswordPage /> },
  { pattern: '/provider-accounts', render: () => <ProviderAccountsPage /> },
  { pattern: '/usage', render: () => <UsagePage /> },
];

/** The sidebar: groups of links. */
export const SIDEBAR: { group: string; links: { path: string; label: string }[] }[] = [
  {
    group: 'Voices',
    links: [
      { path: '/voices', label: 'Voices' },
      { path: '/voices/new', label: 'Create voice' },
      { path: '/playground', label: 'Playground' },
      { path: '/streaming-sessions', label: 'Streaming sessions' },
    ],
  },
  {
    group: 'Agents',
    links: [
      { path: '/agents', label: 'Agents' },
      { path: '/sessions', label: 'Sessions' },
      { path: '/transcription', label: 'Transcription' },
    ],
  },
  {
    group: 'Config',
    links: [
      { path: '/keys', label: 'Integrations' },
      { path: '/webhooks', label: 'Webhooks' },
      { path: '/members', label: 'Members' },
      { path: '/provider-accounts', label: 'Provider accounts' },
      { path: '/usage', label: 'Usage' },
    ],
  },
];

/** Where `/operator` itself leads. */
export const HOME_PATH = '/voices';

/** The page for `path` and its parameters, or undefined. */
export function matchRoute(
  path: string,
): { route: PageRoute; params: Record<string, string> } | undefined {
  const segments = path.split('/').filter(Boolean);
  for (const route of PAGE_ROUTES) {
    const parts = route.pattern.split('/').filter(Boolean);
    if (parts.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const matches = parts.every((part, i) => {
      const segment = segments[i] ?? '';
      if (part.startsWith(':')) {
        params[part.slice(1)] = decodeURIComponent(segment);
        return true;
      }
      return part === segment;
    });
    if (matches) return { route, params };
  }
  return undefined;
}
