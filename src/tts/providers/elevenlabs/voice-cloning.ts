import type { CloneCreateInput, CloneFile, CloneResult, VoiceCloner } from '../cloning/cloner.ts';
import { encodeMultipart, VendorJsonClient } from '../cloning/vendor-call.ts';
import { type ApiKeySource, requireApiKey } from '../upstream/credentials.ts';
import { UpstreamProviderError } from '../upstream/status.ts';
import type { UpstreamTimeouts } from '../upstream/timeouts.ts';
import { parseElevenLabsError } from './error-body.ts';

/** Settings of an {@link ElevenLabsVoiceCloner}. */
export interface ElevenLabsVoiceClonerOptions {
  readonly baseUrl: string;
  readonly apiKey: ApiKeySource | undefined;
  readonly timeouts?: Partial<UpstreamTimeouts> | undefined;
}

/**
 * ElevenLabs instant voice cloning:
 *
 * - create: `POST /v1/voices/add`, multipart `name`, `files` (one part per recording),
 *   `description`, `labels` (JSON) → `{ voice_id, requires_verification }`.
 * - append: `POST /v1/voices/{voice_id}/edit`, multipart `name` and the new `files`; the
 *   voice keeps its earlier samples, so a refresh sends only the new recordings.
 * - find: `GET /v2/voices?search=NAME&voice_type=personal`, exact name match (search is fuzzy).
 * - file names: `GET /v1/voices/{voice_id}` → `samples[].file_name`.
 * - remove: `DELETE /v1/voices/{voice_id}`.
 */
export class ElevenLabsVoiceCloner implements VoiceCloner {
  readonly provider = 'elevenlabs' as const;
  readonly appendsRecordings = true;
  readonly #client: VendorJsonClient;
  readonly #apiKey: ApiKeySource | undefined;

  constructor(options: ElevenLabsVoiceClonerOptions) {
    this.#apiKey = options.apiKey;
    this.#client = new VendorJsonClient({
      provider: 'elevenlabs',
      baseUrl: options.baseUrl,
      timeouts: options.timeouts,
      requestIdHeaders: ['request-id'],
      parseError: parseElevenLabsError,
    });
  }

  async create(input: CloneCreateInput, signal: AbortSignal): Promise<CloneResult> {
    const form = new FormData();
    form.append('name', input.name);
    form.append('description', input.description);
    form.append('remove_background_noise', 'false');
    const languages = [...new Set(input.files.map((file) => file.language))];
    form.append('labels', JSON.stringify({ language: languages.join(',') }));
    appendFiles(form, input.files);
    const answer = (await this.#post('/v1/voices/add', form, signal)) as {
      voice_id?: unknown;
      requires_verification?: unknown;
    };
    if (typeof answer?.voice_id !== 'string' || answer.voice_id === '') {
      throw new UpstreamProviderError('unavailable', 'elevenlabs answered without a voice_id', {
        provider: 'elevenlabs',
      });
    }
    return {
      providerVoiceId: answer.voice_id,
      // ElevenLabs holds such a voice until the speaker verifies it in their dashboard.
      blockedReason:
        answer.requires_verification === true
          ? 'ElevenLabs requires the speaker to verify this voice before it can be used.'
          : undefined,
    };
  }

  async append(
    providerVoiceId: string,
    name: string,
    files: readonly CloneFile[],
    signal: AbortSignal,
  ): Promise<void> {
    const form = new FormData();
    form.append('name', name);
    appendFiles(form, files);
    await this.#post(`/v1/voices/${encodeURIComponent(providerVoiceId)}/edit`, form, signal);
  }

  async findByName(name: string, signal: AbortSignal): Promise<string | null> {
    let token: string | undefined;
    // Bounded: a search by a unique name returns a page or two.
    for (let page = 0; page < 10; page += 1) {
      const query = new URLSearchParams({ search: name, voice_type: 'personal', page_size: '100' });
      if (token) query.set('next_page_token', token);
      const answer = (await this.#client.call(
        { method: 'GET', path: `/v2/voices?${query}`, headers: this.#headers() },
        signal,
      )) as {
        voices?: { voice_id?: unknown; name?: unknown }[];
        has_more?: unknown;
        next_page_token?: unknown;
      };
      const found = answer?.voices?.find((voice) => voice.name === name);
      if (found && typeof found.voice_id === 'string') return found.voice_id;
      if (answer?.has_more !== true || typeof answer.next_page_token !== 'string') return null;
      token = answer.next_page_token;
    }
    return null;
  }

  async fileNames(providerVoiceId: string, signal: AbortSignal): Promise<Set<string>> {
    const answer = (await this.#client.call(
      {
        method: 'GET',
        path: `/v1/voices/${encodeURIComponent(providerVoiceId)}`,
        headers: this.#headers(),
      },
      signal,
    )) as { samples?: { file_name?: unknown }[] | null };
    return new Set(
      (answer?.samples ?? []).flatMap((sample) =>
        typeof sample.file_name === 'string' ? [sample.file_name] : [],
      ),
    );
  }

  async remove(providerVoiceId: string, signal: AbortSignal): Promise<void> {
    try {
      await this.#client.call(
        {
          method: 'DELETE',
          path: `/v1/voices/${encodeURIComponent(providerVoiceId)}`,
          headers: this.#headers(),
        },
        signal,
      );
    } catch (error) {
      if (error instanceof UpstreamProviderError && error.status === 404) return;
      throw error;
    }
  }

  close(): void {
    this.#client.close();
  }

  async #post(path: string, form: FormData, signal: AbortSignal): Promise<unknown> {
    const { body, contentType } = await encodeMultipart(form);
    return this.#client.call(
      { method: 'POST', path, headers: { ...this.#headers(), 'content-type': contentType }, body },
      signal,
    );
  }

  #headers(): Record<string, string> {
    return { 'xi-api-key': requireApiKey(this.#apiKey, 'elevenlabs'), accept: 'application/json' };
  }
}

function appendFiles(form: FormData, files: readonly CloneFile[]): void {
  for (const file of files) {
    form.append(
      'files',
      new Blob([new Uint8Array(file.data)], { type: file.contentType }),
      file.fileName,
    );
  }
}
