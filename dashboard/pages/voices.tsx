import { call } from '../api.ts';
import { Notice, Page, useLoad } from '../components.tsx';
import { hasRole, useOperatorSession } from '../operator-session.ts';
import { linkProps } from '../router.ts';
import { VOICE_MANAGER_ROLES, type Voice } from '../types.ts';
import { BuiltInVoices } from './built-in-voices.tsx';
import {
  anyCloning,
  defaultRoute,
  OfferedSummary,
  providerLabel,
  routeName,
  StateBadge,
  usePollWhile,
  VoiceIdCopy,
} from './voice/route-labels.tsx';
import './voice/voice.css';

/**
 * Voices: every voice of the workspace in this environment with its default route, the
 * state of each route and whether clients are offered it. Read again every 2 s while any
 * route is Cloning, so states move on screen as providers finish.
 */
export function VoicesPage() {
  const me = useOperatorSession();
  const voices = useLoad(() => call<{ voices: Voice[] }>('GET', '/voices').then((r) => r.voices));
  usePollWhile(anyCloning(voices.data ?? []), voices.reload);
  const actions = hasRole(me, VOICE_MANAGER_ROLES) ? (
    <a className="button primary" {...linkProps('/voices/new')}>
      Create voice
    </a>
  ) : undefined;

  return (
    <Page title="Voices" actions={actions}>
      <p className="muted">
        The voices of this workspace in the {me.environment} environment. Clients synthesize with a
        voice’s id: its default route serves, and its other Ready enabled routes take over when that
        route fails before any audio.
      </p>
      {voices.error ? <Notice kind="error">{voices.error}</Notice> : null}
      <table className="voices-table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Voice id</th>
            <th>Default route</th>
            <th>Routes</th>
            <th>Clients</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(voices.data ?? []).map((voice) => {
            const route = defaultRoute(voice);
            return (
              <tr key={voice.id} data-voice-id={voice.id}>
                <td>
                  <a {...linkProps(`/voices/${encodeURIComponent(voice.id)}`)}>{voice.name}</a>
                </td>
                <td>
                  <VoiceIdCopy id={voice.id} />
                </td>
                <td>{route ? routeName(route) : <span className="muted">None</span>}</td>
                <td>
                  <ul className="route-states">
                    {voice.routes.map((r) => (
                      <li key={r.id} data-provider={r.provider}>
                        <span className="muted">{providerLabel(r.provider)}</span>{' '}
                        <StateBadge state={r.state} />
                      </li>
                    ))}
                  </ul>
                </td>
                <td>
                  <OfferedSummary voice={voice} />
                </td>
                <td>
                  <a {...linkProps(`/voices/${encodeURIComponent(voice.id)}`)}>Open</a>
                </td>
              </tr>
            );
          })}
          {voices.data && voices.data.length === 0 ? (
            <tr>
              <td colSpan={6} className="muted">
                No voices yet in this environment.
              </td>
            </tr>
          ) : null}
          {!voices.data && voices.loading ? (
            <tr>
              <td colSpan={6} className="muted">
                Loading…
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      <BuiltInVoices
        workspaceVoiceIds={voices.data ? new Set(voices.data.map((voice) => voice.id)) : undefined}
      />
    </Page>
  );
}
