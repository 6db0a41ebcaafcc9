import { type AudioStore, InvalidObjectKeyError } from '../../storage/audio-store.ts';

/** Where a sample lives: `{workspaceId}/{voiceId}/{sampleId}.{ext}`. */
export function sampleObjectKey(parts: {
  workspaceId: string;
  voiceId: string;
  sampleId: string;
  extension: string;
}): string {
  return `${parts.workspaceId}/${parts.voiceId}/${parts.sampleId}.${parts.extension}`;
}

/**
 * Voice recordings behind an {@link AudioStore}. Every read names the workspace and is
 * refused for a key outside that workspace's folder, so a sample id of another workspace
 * never yields its audio even if a caller got the key wrong.
 */
export class SampleStore {
  constructor(private readonly store: AudioStore) {}

  async put(objectKey: string, audio: Buffer, contentType: string): Promise<void> {
    await this.store.put(objectKey, audio, contentType);
  }

  /** The recording's bytes; throws when the key is not the workspace's or the file is gone. */
  async read(workspaceId: string, objectKey: string): Promise<Buffer> {
    if (!objectKey.startsWith(`${workspaceId}/`)) throw new InvalidObjectKeyError(objectKey);
    const audio = await this.store.get(objectKey);
    if (audio === null) throw new Error(`voice sample ${objectKey} is missing from storage`);
    return audio;
  }
}
