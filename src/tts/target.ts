import { type OutputFormat, parseOutputFormat } from '../../media/formats.ts';
import { ApiError } from '../errors.ts';
import type { CatalogVoice, VoiceCatalog } from '../voices/catalog.ts';
import type { SynthesisCaller } from './ports.ts';

/**
 * The voice and format a request asks for: the voice must be in the caller's catalog and
 * the format one the voice lists. Never substituted. `routeId` (the dashboard Playground)
 * pins one route of the voice, see {@link VoiceCatalog.resolve}.
 */
export async function resolveSynthesisTarget(
  catalog: VoiceCatalog,
  caller: SynthesisCaller,
  voiceId: string,
  outputFormat: string,
  routeId?: string,
): Promise<{ voice: CatalogVoice; format: OutputFormat }> {
  const parsed = parseOutputFormat(outputFormat);
  if (!parsed.ok) throw new ApiError('invalid_request', parsed.message);
  const voice = await catalog.resolve(caller.workspaceId, caller.environment, voiceId, routeId);
  if (!voice) {
    throw new ApiError('voice_not_found', 'No voice with this voice_id is enabled for this key.');
  }
  if (!voice.outputFormats.includes(parsed.format)) {
    throw new ApiError(
      'invalid_request',
      `output_format ${parsed.format} is not offered by this voice; it offers ${voice.outputFormats.join(', ')}.`,
    );
  }
  return { voice, format: parsed.format };
}
