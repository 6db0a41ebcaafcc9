import type { CloneCreateInput, CloneResult, VoiceCloner } from '../cloning/cloner.ts';
import { encodeMultipart, VendorJsonClient } from '../cloning/vendor-call.ts';
import { type ApiKeySource, requireApiKey } from '../upstream/credentials.ts';
import { UpstreamProviderError } from '../upstream/status.ts';
import type { UpstreamTimeouts } from '../upstream/timeouts.ts';
import { parseFishAudioError } from './error-body.ts';

/** Settings of a {@link FishAudioVoiceCloner}. */
export interface FishAudioVoiceClonerOptions {
  readonly baseUrl: string;
  readonly apiKey: ApiKeySource | undefined;
  readonly timeouts?: Partial<UpstreamTimeouts> | undefined;
}

/**
 * Fish Audio voice models:
 *
 * - create: `POST /model`, multipart `type=tts`, `title`, `train_mode=fast` (usable at
 *   once), `visibility=private`, `description`, one `voices` file and one `texts`
 *   transcript per recording, in the same order → the model object with `_id`.
 * - find: `GET /model?self=true&title=NAME&page_size=100`, exact title match.
 * - remove: `DELETE /model/{id}`.
 *
 * Models cannot take more recordings after creation: a refresh builds a new model from
 * the full set and deletes the old one.
 */
export class FishAudioVoiceCloner implements VoiceCloner {
  readonly provider = 'fishaudio' as const;
  readonly appendsRecordings = false;
  readonly #client: VendorJsonClient;
  readonly #apiKey: ApiKeySource | undefined;

  constructor(options: FishAudioVoiceClonerOptions) {
    this.#apiKey = options.apiKey;
    this.#client = new VendorJsonClient({
      provider: 'fishaudio',
      baseUrl: options.baseUrl,
      timeouts: options.timeouts,
      parseError: parseFishAudioError,
    });
  }

  async create(input: CloneCreateInput, signal: AbortSignal): Promise<CloneResult> {
    const form = new FormData();
    form.append('type', 'tts');
    form.append('title', input.name);
    form.append('train_mode', 'fast');
    form.append('visibility', 'private');
    form.append('description', input.description);
    for (const file of input.files) {
      form.append(
        'voices',
        new Blob([new Uint8Array(file.data)], { type: file.contentType }),
        file.fileName,
      );
    }
    for (const file of input.files) form.append('texts', file.transcript);
    const { body, contentType } = await encodeMultipart(form);
    const answer = (await this.#client.call(
      {
        method: 'POST',
        path: '/model',
        headers: { ...this.#headers(), 'content-type': contentType },
        body,
      },
      signal,
    )) as { _id?: unknown };
    if (typeof answer?._id !== 'string' || answer._id === '') {
      throw new UpstreamProviderError('unavailable', 'fishaudio answered without a model _id', {
        provider: 'fishaudio',
      });
    }
    return { providerVoiceId: answer._id };
  }

  async findByName(name: string, signal: AbortSignal): Promise<string | null> {
    for (let page = 1; page <= 10; page += 1) {
      const query = new URLSearchParams({
        self: 'true',
        title: name,
        page_size: '100',
        page_number: String(page),
      });
      const answer = (await this.#client.call(
        { method: 'GET', path: `/model?${query}`, headers: this.#headers() },
        signal,
      )) as { total?: unknown; items?: { _id?: unknown; title?: unknown }[] };
      const items = answer?.items ?? [];
      const found = items.find((item) => item.title === name);
      if (found && typeof found._id === 'string') return found._id;
      if (items.length < 100) return null;
    }
    return null;
  }

  append(): Promise<void> {
    return Promise.reject(new Error('Fish Audio models cannot take more recordings'));
  }

  fileNames(): Promise<Set<string>> {
    return Promise.reject(new Error('Fish Audio models cannot take more recordings'));
  }

  async remove(providerVoiceId: string, signal: AbortSignal): Promise<void> {
    try {
      await this.#client.call(
        {
          method: 'DELETE',
          path: `/model/${encodeURIComponent(providerVoiceId)}`,
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

  #headers(): Record<string, string> {
    return { authorization: `Bearer ${requireApiKey(this.#apiKey, 'fishaudio')}` };
  }
}
