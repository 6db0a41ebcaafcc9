import { useState } from 'react';
import { call } from '../api.ts';
import { Notice, Page, Tabs, useLoad } from '../components.tsx';
import { hasRole, useOperatorSession } from '../operator-session.ts';
import { linkProps } from '../router.ts';
import { type CloneAttempt, VOICE_MANAGER_ROLES, type Voice, type VoiceSample } from '../types.ts';
import { HistoryTab } from './voice/history-tab.tsx';
import {
  anyCloning,
  defaultRoute,
  OfferedSummary,
  routeName,
  usePollWhile,
  VoiceIdCopy,
} from './voice/route-labels.tsx';
import { RoutesTab } from './voice/routes-tab.tsx';
import { SamplesTab } from './voice/samples-tab.tsx';
import { voicePath } from './voice/use-action.ts';
import './voice/voice.css';

type TabId = 'routes' | 'samples' | 'history';

const TABS: readonly { id: TabId; label: string }[] = [
  { id: 'routes', label: 'Routes' },
  { id: 'samples', label: 'Samples' },
  { id: 'history', label: 'History' },
];

/** A voice with its recordings and clone History, read together. */
export interface VoiceDetails {
  voice: Voice;
  samples: VoiceSample[];
  history: CloneAttempt[];
}

async function loadDetails(voiceId: string): Promise<VoiceDetails> {
  // The voice first: a clone ends with its route and its attempt in one transaction, so
  // History read after a route that is no longer Cloning has that attempt's end too (read
  // at once, History could still say Running while polling stops on the finished route).
  const voice = await call<{ voice: Voice }>('GET', voicePath(voiceId));
  const [samples, history] = await Promise.all([
    call<{ samples: VoiceSample[] }>('GET', voicePath(voiceId, '/samples')),
    call<{ history: CloneAttempt[] }>('GET', voicePath(voiceId, '/history')),
  ]);
  return { voice: voice.voice, samples: samples.samples, history: history.history };
}

/**
 * One voice (`/voices/:voiceId`): its id, default route and what clients are offered, and
 * the tabs Routes, Samples and History. Owner and Admin configure and clone; other roles
 * read. Read again every 2 s while a route is Cloning.
 */
export function VoicePage(props: { voiceId: string }) {
  const me = useOperatorSession();
  const canManage = hasRole(me, VOICE_MANAGER_ROLES);
  const [tab, setTab] = useState<TabId>('routes');
  const details = useLoad(() => loadDetails(props.voiceId), [props.voiceId]);
  const data = details.data?.voice.id === props.voiceId ? details.data : undefined;
  usePollWhile(anyCloning(data ? [data.voice] : []), details.reload);

  if (!data) {
    return (
      <Page title="Voice">
        <BackLink />
        {details.error ? (
          <Notice kind="error">{details.error}</Notice>
        ) : (
          <p className="muted">Loading…</p>
        )}
      </Page>
    );
  }

  const { voice } = data;
  const route = defaultRoute(voice);
  return (
    <Page title={voice.name}>
      <BackLink />
      <dl className="voice-summary">
        <dt>Voice id</dt>
        <dd>
          <VoiceIdCopy id={voice.id} />
        </dd>
        <dt>Default route</dt>
        <dd>{route ? routeName(route) : <span className="muted">None</span>}</dd>
        <dt>Clients</dt>
        <dd>
          <OfferedSummary voice={voice} />
        </dd>
      </dl>
      {details.error ? <Notice kind="error">{details.error}</Notice> : null}
      {canManage ? null : (
        <Notice kind="info">
          Configuring and cloning voices requires a workspace Owner or Admin; you can browse them.
        </Notice>
      )}
      <Tabs tabs={TABS} selected={tab} onSelect={setTab} />
      {tab === 'routes' ? (
        <RoutesTab voice={voice} canManage={canManage} onChanged={details.reload} />
      ) : null}
      {tab === 'samples' ? (
        <SamplesTab
          voice={voice}
          samples={data.samples}
          canManage={canManage}
          onChanged={details.reload}
        />
      ) : null}
      {tab === 'history' ? (
        <HistoryTab
          voice={voice}
          history={data.history}
          canManage={canManage}
          onChanged={details.reload}
        />
      ) : null}
    </Page>
  );
}

function BackLink() {
  return (
    <p className="back-link">
      <a {...linkProps('/voices')}>← Voices</a>
    </p>
  );
}
