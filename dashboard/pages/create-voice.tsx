import { useState } from 'react';
import { call } from '../api.ts';
import { Notice, Page, Tabs, useLoad } from '../components.tsx';
import { hasRole, useOperatorSession } from '../operator-session.ts';
import { type ProviderAccount, VOICE_MANAGER_ROLES } from '../types.ts';
import { ImportTab } from './create-voice/import-tab.tsx';
import { RecordTab } from './create-voice/record-tab.tsx';
import { UploadTab } from './create-voice/upload-tab.tsx';
import './create-voice/create-voice.css';

const TABS = [
  { id: 'upload', label: 'Upload' },
  { id: 'record', label: 'Record' },
  { id: 'import', label: 'Import existing' },
] as const;
type TabId = (typeof TABS)[number]['id'];

/**
 * Create voice (spec rules 1-6, 9): clone a new voice from uploaded or recorded speech, or
 * import one from a vendor catalog. Owner and Admin only; the new voice's page opens next.
 */
export function CreateVoicePage() {
  const me = useOperatorSession();
  if (!hasRole(me, VOICE_MANAGER_ROLES)) {
    return (
      <Page title="Create voice">
        <Notice kind="info">
          Creating voices requires a workspace Owner or Admin. Every member can browse voices and
          generate in the Playground.
        </Notice>
      </Page>
    );
  }
  return (
    <Page title="Create voice">
      <CreateVoiceTabs />
    </Page>
  );
}

function CreateVoiceTabs() {
  const [tab, setTab] = useState<TabId>('upload');
  const accounts = useLoad(() =>
    call<{ provider_accounts: ProviderAccount[] }>('GET', '/provider-accounts').then(
      (answer) => answer.provider_accounts,
    ),
  );
  const shared = { accounts: accounts.data, accountsError: accounts.error };
  return (
    <>
      <Tabs tabs={TABS} selected={tab} onSelect={setTab} />
      <div role="tabpanel">
        {tab === 'upload' ? <UploadTab {...shared} /> : null}
        {tab === 'record' ? <RecordTab {...shared} /> : null}
        {tab === 'import' ? <ImportTab {...shared} /> : null}
      </div>
    </>
  );
}
