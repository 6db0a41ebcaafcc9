import { useEffect, useState } from 'react';
import type { Voice, VoiceProvider, VoiceRoute, VoiceRouteState } from '../../types.ts';

/** How often a page reads a voice again while one of its routes is Cloning. */
export const CLONING_POLL_MS = 2_000;

/** Route states as operators read them (spec, Voice route states). */
export const STATE_LABELS: Readonly<Record<VoiceRouteState, string>> = {
  ready: 'Ready',
  cloning: 'Cloning',
  failed: 'Failed',
  blocked: 'Blocked',
  update_available: 'Update available',
};

/** Providers a voice can be cloned to, as the pages name them. */
export const PROVIDER_LABELS: Readonly<Record<VoiceProvider, string>> = {
  elevenlabs: 'ElevenLabs',
  fishaudio: 'Fish Audio',
  native: 'Native',
};

/** A provider's display name; an unknown provider as it is spelled. */
export function providerLabel(provider: string): string {
  return PROVIDER_LABELS[provider as VoiceProvider] ?? provider;
}

/** A route's state as a coloured badge. */
export function StateBadge(props: { state: VoiceRouteState }) {
  return (
    <span className={`badge badge-state badge-${props.state}`}>{STATE_LABELS[props.state]}</span>
  );
}

/** “Provider · model” of a route. */
export function routeName(route: Pick<VoiceRoute, 'provider' | 'model'>): string {
  return `${providerLabel(route.provider)} · ${route.model}`;
}

/** The voice's default route, if it has one. */
export function defaultRoute(voice: Voice): VoiceRoute | undefined {
  return voice.routes.find((route) => route.id === voice.default_route_id);
}

/** True while any route of any of the voices is Cloning. */
export function anyCloning(voices: readonly Voice[]): boolean {
  return voices.some((voice) => voice.routes.some((route) => route.state === 'cloning'));
}

/**
 * What clients are offered (spec rule 12): the formats and tags of the voice's default
 * route, or why synthesis cannot find it.
 */
export function OfferedSummary(props: { voice: Voice }) {
  const { offered } = props.voice;
  if (!offered) {
    return <span className="not-offered">Not offered: no ready enabled route</span>;
  }
  return (
    <span className="offered" title={offered.output_formats.join(', ')}>
      Offered · {offered.output_formats.length} output formats
      {offered.capabilities.includes('voice_tags') ? ' · voice tags' : ''}
    </span>
  );
}

/** The voice id in monospace with a button that copies it. */
export function VoiceIdCopy(props: { id: string }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 1_500);
    return () => clearTimeout(timer);
  }, [copied]);
  const copy = () => {
    navigator.clipboard?.writeText(props.id).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  return (
    <span className="voice-id">
      <code>{props.id}</code>
      <button
        type="button"
        className="small"
        onClick={copy}
        aria-label={`Copy ${props.id}`}
        title="Copy the voice id"
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
    </span>
  );
}

/** Calls `refresh` every {@link CLONING_POLL_MS} while `active`. */
export function usePollWhile(active: boolean, refresh: () => void): void {
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(refresh, CLONING_POLL_MS);
    return () => clearInterval(timer);
  }, [active, refresh]);
}
