/** Shapes of the Playground's operator API answers. */

import type { VoiceGeneration } from '../../types.ts';

export type PlaygroundFormat = 'pcm' | 'aac' | 'opus';

/** The choices of rule 10 and the `/v1` format each is synthesized as. */
export const PLAYGROUND_FORMATS: readonly { id: PlaygroundFormat; label: string; wire: string }[] =
  [
    { id: 'pcm', label: 'PCM', wire: 'pcm_24000' },
    { id: 'aac', label: 'AAC', wire: 'aac_44100_128' },
    { id: 'opus', label: 'Opus', wire: 'opus_48000_64' },
  ];

/** A generation as the Playground shows it: the History's view and what it cost. */
export interface Generation extends VoiceGeneration {
  tags_skipped: boolean;
  size_bytes: number;
  charge_credits: number;
}

export interface VoiceTag {
  tag: string;
  kind: 'emotion' | 'delivery' | 'sound';
  description: string;
}

/** A voice clients can use (`GET /catalog`, the same list as `GET /v1/voices`). */
export interface ClientVoice {
  id: string;
  name: string;
  output_formats: string[];
  capabilities: string[];
}

/** A route of a workspace voice (`GET /voices`); built-in voices have none. */
export interface PlaygroundRoute {
  id: string;
  provider: string;
  model: string | null;
  state: string;
  enabled: boolean;
  is_default: boolean;
}

/** A voice as the Playground offers it: the catalog entry and, for workspace voices, routes. */
export interface PlaygroundVoice extends ClientVoice {
  routes: PlaygroundRoute[];
}
