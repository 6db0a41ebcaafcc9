/** Products a workspace can have enabled. Routes name the one they belong to. */
export const CAPABILITIES = ['tts', 'agents', 'transcription', 'translation'] as const;

export type Capability = (typeof CAPABILITIES)[number];

export function isCapability(value: string): value is Capability {
  return (CAPABILITIES as readonly string[]).includes(value);
}
