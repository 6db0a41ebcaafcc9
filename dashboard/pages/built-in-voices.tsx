import { call } from '../api.ts';
import { Notice, useLoad } from '../components.tsx';
import { linkProps } from '../router.ts';
import type { ClientVoice } from './playground/playground-types.ts';
import { VoiceIdCopy } from './voice/route-labels.tsx';

/**
 * The voices every workspace has without creating any (the platform's own engines): the
 * catalog's voices (`GET /catalog`) that are not workspace voices. They have no routes to
 * configure; the Playground tries them.
 */
export function BuiltInVoices(props: { workspaceVoiceIds: ReadonlySet<string> | undefined }) {
  const catalog = useLoad(() =>
    call<{ voices: ClientVoice[] }>('GET', '/catalog').then((answer) => answer.voices),
  );
  if (!props.workspaceVoiceIds) return null;
  const builtIn = (catalog.data ?? []).filter((voice) => !props.workspaceVoiceIds?.has(voice.id));
  return (
    <>
      <h2>Built-in voices</h2>
      <p className="muted">
        Served by this platform’s own engines and offered to every workspace; nothing to configure.
      </p>
      {catalog.error ? <Notice kind="error">{catalog.error}</Notice> : null}
      <table className="built-in-voices">
        <thead>
          <tr>
            <th>Name</th>
            <th>Voice id</th>
            <th>Output formats</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {builtIn.map((voice) => (
            <tr key={voice.id} data-voice-id={voice.id}>
              <td>{voice.name}</td>
              <td>
                <VoiceIdCopy id={voice.id} />
              </td>
              <td>{voice.output_formats.length}</td>
              <td>
                <a {...linkProps(`/playground?voice=${encodeURIComponent(voice.id)}`)}>
                  Try in Playground
                </a>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
