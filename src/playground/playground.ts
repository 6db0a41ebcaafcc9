import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { getOutputFormatInfo, type OutputFormat } from '../../media/formats.ts';
import { encodeWav } from '../../media/wav.ts';
import type { Environment } from '../app/config.ts';
import { checkAccount } from '../auth/account-checks.ts';
import type { Database } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import { type AudioStore, audioFileExtension } from '../storage/audio-store.ts';
import type { OneShotSynthesis } from '../tts/oneshot.ts';
import type { OperatorCaller } from '../tts/ports.ts';
import type { SpooledAudio } from '../tts/spool.ts';
import type { ResolvedRoute, VoiceCatalog } from '../voices/catalog.ts';
import type { VoiceStore } from '../voices/voice-store.ts';
import { Workspaces } from '../workspaces/workspaces.ts';
import { autoTag } from './auto-tag.ts';
import { type VoiceGeneration, VoiceGenerationStore } from './generation-store.ts';

/** The Playground's output choices. */
export const PLAYGROUND_FORMATS = ['pcm', 'aac', 'opus'] as const;
export type PlaygroundFormat = (typeof PLAYGROUND_FORMATS)[number];

/**
 * The synthesis format of each choice. PCM is delivered as a WAV file (the same samples
 * with a 44-byte header) so a browser's `<audio>` plays it; the others as synthesized.
 */
export const PLAYGROUND_OUTPUT_FORMATS: { readonly [F in PlaygroundFormat]: OutputFormat } = {
  pcm: 'pcm_24000',
  aac: 'aac_44100_128',
  opus: 'opus_48000_64',
};

/** `tags_skipped`: the route could not apply tags and removed them before synthesis. */
export type GenerationWarning = 'tags_skipped';
/** `tags_unsupported`: Auto Tag left the text alone because the voice cannot apply tags. */
export type AutoTagWarning = 'tags_unsupported';

/** A signed-in member using the Playground in one environment. */
export interface PlaygroundMember {
  userId: string;
  email: string;
  workspaceId: string;
  environment: Environment;
}

export interface GenerateInput {
  voiceId: string;
  text: string;
  format: PlaygroundFormat;
  speed?: number | undefined;
  routeId?: string | undefined;
  voiceTags?: string[] | undefined;
  /** The HTTP request's id: the ledger row's id, as for `POST /v1/tts`. */
  requestId: string;
  signal: AbortSignal;
}

export interface PlaygroundDependencies {
  db: Kysely<Database>;
  synthesis: OneShotSynthesis;
  catalog: VoiceCatalog;
  voices: VoiceStore;
  /** Where generated audio is kept (the service's audio store). */
  audio: AudioStore;
}

/**
 * The dashboard Playground: synthesis through the same one-shot path as `POST /v1/tts`
 * (rate limit, voice and format checks, tags, ledger row and credit), charged to the
 * member's workspace and recorded under the member's email instead of an API key; each
 * success is kept with its audio as the voice's generation History. Auto Tag is offline.
 */
export class Playground {
  readonly #generations: VoiceGenerationStore;
  readonly #workspaces: Workspaces;

  constructor(private readonly deps: PlaygroundDependencies) {
    this.#generations = new VoiceGenerationStore(deps.db);
    this.#workspaces = new Workspaces(deps.db);
  }

  async generate(
    member: PlaygroundMember,
    input: GenerateInput,
  ): Promise<{ generation: VoiceGeneration; warnings: GenerationWarning[] }> {
    const caller = await this.#caller(member);
    const format = PLAYGROUND_OUTPUT_FORMATS[input.format];
    const result = await this.deps.synthesis.run(
      caller,
      input.requestId,
      {
        text: input.text,
        voice_id: input.voiceId,
        output_format: format,
        params: { speed: input.speed, voice_tags: input.voiceTags },
      },
      input.signal,
      { routeId: input.routeId },
    );
    const delivered = await wholeAudio(result.audio);
    const info = getOutputFormatInfo(format);
    const wav = info.codec === 'pcm';
    const audio = wav ? encodeWav({ data: delivered, sampleRateHz: info.sampleRateHz }) : delivered;
    const contentType = wav ? 'audio/wav' : result.contentType;
    const id = `gen_${uuidv7()}`;
    const extension = wav ? 'wav' : audioFileExtension(format);
    const objectKey = `${member.workspaceId}/generations/${input.voiceId}/${id}.${extension}`;
    await this.deps.audio.put(objectKey, audio, contentType);
    const generation: VoiceGeneration = {
      id,
      workspaceId: member.workspaceId,
      environment: member.environment,
      voiceId: input.voiceId,
      ...sourceOf(result.route),
      requestId: input.requestId,
      text: input.text,
      outputFormat: format,
      speed: input.speed ?? null,
      voiceTags: input.voiceTags ?? null,
      tagsSkipped: result.tagsSkipped,
      contentType,
      durationMs: Math.round(result.durationMs),
      sizeBytes: audio.byteLength,
      costMillicredits: result.chargeMillicredits,
      objectKey,
      createdBy: member.email,
      createdAt: new Date().toISOString(),
    };
    await this.#generations.insert(generation);
    return { generation, warnings: result.tagsSkipped ? ['tags_skipped'] : [] };
  }

  /** The voice's generations, newest first; 404 `voice_not_found` for an unknown voice. */
  async list(member: PlaygroundMember, voiceId: string, limit: number): Promise<VoiceGeneration[]> {
    await this.#requireVoice(member, voiceId);
    return this.#generations.list(member.workspaceId, member.environment, voiceId, limit);
  }

  /** One generation and its audio; 404 `not_found` when the voice has no such generation. */
  async audio(
    member: PlaygroundMember,
    voiceId: string,
    generationId: string,
  ): Promise<{ generation: VoiceGeneration; audio: Buffer }> {
    await this.#requireVoice(member, voiceId);
    const generation = await this.#generations.find(
      member.workspaceId,
      member.environment,
      voiceId,
      generationId,
    );
    const audio = generation && (await this.deps.audio.get(generation.objectKey));
    if (!generation || !audio) {
      throw new ApiError('not_found', `No generation ${generationId} on this voice.`);
    }
    return { generation, audio };
  }

  /**
   * Deletes a generation from the voice's History with its audio: the member who made it,
   * or anyone when `mayDeleteAny` (Owner, Admin). The ledger row that charged it stays.
   */
  async remove(
    member: PlaygroundMember,
    voiceId: string,
    generationId: string,
    mayDeleteAny: boolean,
  ): Promise<VoiceGeneration> {
    await this.#requireVoice(member, voiceId);
    const generation = await this.#generations.find(
      member.workspaceId,
      member.environment,
      voiceId,
      generationId,
    );
    if (!generation)
      throw new ApiError('not_found', `No generation ${generationId} on this voice.`);
    if (generation.createdBy !== member.email && !mayDeleteAny) {
      throw new ApiError(
        'forbidden',
        'Only the member who made a generation, or an Owner or Admin, deletes it.',
      );
    }
    // The row first: a file left by a failed removal is unreachable, never a row without audio.
    if (
      await this.#generations.delete(member.workspaceId, member.environment, voiceId, generationId)
    ) {
      await this.deps.audio.delete(generation.objectKey);
    }
    return generation;
  }

  /**
   * Auto Tag (see {@link autoTag}). With a voice (and optionally one of its routes), text
   * for a voice that cannot apply tags comes back unchanged with `tags_unsupported`: the
   * same capability synthesis goes by, so what Auto Tag adds is what would be spoken.
   */
  async autoTag(
    member: PlaygroundMember,
    input: { text: string; voiceId?: string | undefined; routeId?: string | undefined },
  ): Promise<{ text: string; warnings: AutoTagWarning[] }> {
    if (input.voiceId !== undefined) {
      const voice = await this.deps.catalog.resolve(
        member.workspaceId,
        member.environment,
        input.voiceId,
        input.routeId,
      );
      if (!voice) throw new ApiError('voice_not_found', `No voice ${input.voiceId} here.`);
      if (!voice.capabilities.includes('voice_tags')) {
        return { text: input.text, warnings: ['tags_unsupported'] };
      }
    }
    return { text: autoTag(input.text), warnings: [] };
  }

  /** The member as a synthesis caller, once the workspace passes the account checks. */
  async #caller(member: PlaygroundMember): Promise<OperatorCaller> {
    const workspace = await this.#workspaces.get(member.workspaceId);
    checkAccount(
      {
        workspaceStatus: workspace.status,
        billingProvisioned: workspace.billingProvisioned,
        capabilities: new Set(workspace.capabilities),
      },
      'tts',
    );
    return {
      credential: 'operator_session',
      userId: member.userId,
      email: member.email,
      workspaceId: member.workspaceId,
      environment: member.environment,
    };
  }

  /** A built-in voice, or a voice of the member's workspace and environment. */
  async #requireVoice(member: PlaygroundMember, voiceId: string): Promise<void> {
    if (this.deps.catalog.builtIn(voiceId)) return;
    const stored = await this.deps.voices.find(member.workspaceId, member.environment, voiceId);
    if (!stored) throw new ApiError('voice_not_found', `No voice ${voiceId} here.`);
  }
}

/** Route id, provider and model of the route that served, as the operator API names them. */
function sourceOf(route: ResolvedRoute): Pick<VoiceGeneration, 'routeId' | 'provider' | 'model'> {
  if (route.voiceRoute) {
    return {
      routeId: route.voiceRoute.id,
      provider: route.voiceRoute.provider,
      model: route.voiceRoute.model,
    };
  }
  return { routeId: null, provider: route.provider.name, model: route.model ?? null };
}

/** The whole answer in memory; a spooled one is read from its file, which then goes. */
async function wholeAudio(audio: Buffer | SpooledAudio): Promise<Buffer> {
  if (Buffer.isBuffer(audio)) return audio;
  const chunks: Buffer[] = [];
  // Read to the end even if the member left: the generation was charged and is kept.
  for await (const chunk of audio.stream(new AbortController().signal)) chunks.push(chunk);
  return Buffer.concat(chunks);
}
