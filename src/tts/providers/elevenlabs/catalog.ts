import {
  arrayField,
  type CatalogQuery,
  type CatalogSource,
  JsonUpstream,
  malformed,
  stringField,
  type VendorCatalog,
  type VendorCatalogOptions,
  type VendorCatalogPage,
  type VendorVoice,
} from '../upstream/catalog.ts';
import { UpstreamProviderError } from '../upstream/status.ts';
import { isElevenLabsVoiceId } from './provider.ts';

/**
 * ElevenLabs voice listings (https://elevenlabs.io/docs/api-reference):
 * - own voices: `GET /v2/voices?page_size&search&next_page_token` answering
 *   `{voices, has_more, total_count, next_page_token}`; one voice: `GET /v1/voices/{id}`;
 * - the public library: `GET /v1/shared-voices?page_size&page&search` answering
 *   `{voices: [{public_owner_id, voice_id, name, ...}], has_more}` (`page` 0-based);
 *   a shared voice is added to the account with
 *   `POST /v1/voices/add/{public_user_id}/{voice_id}` `{new_name}` answering `{voice_id}`,
 *   the id to synthesize with.
 */
export class ElevenLabsCatalog implements VendorCatalog {
  readonly #http: JsonUpstream;
  readonly #apiKey: string;

  constructor(options: VendorCatalogOptions) {
    this.#http = new JsonUpstream('elevenlabs', options);
    this.#apiKey = options.apiKey;
  }

  async list(query: CatalogQuery, signal: AbortSignal): Promise<VendorCatalogPage> {
    const params = new URLSearchParams({ page_size: String(query.pageSize) });
    if (query.search) params.set('search', query.search);
    if (query.source === 'own') {
      if (query.pageToken) params.set('next_page_token', query.pageToken);
      const body = await this.#get(`/v2/voices?${params}`, signal);
      const hasMore = (body as { has_more?: unknown }).has_more === true;
      return {
        voices: this.#voices(body, false),
        nextPageToken: hasMore ? stringField(body, 'next_page_token') : null,
      };
    }
    const page = query.pageToken === undefined ? 0 : Number(query.pageToken);
    if (!Number.isSafeInteger(page) || page < 0) throw invalidToken();
    params.set('page', String(page));
    const body = await this.#get(`/v1/shared-voices?${params}`, signal);
    const hasMore = (body as { has_more?: unknown }).has_more === true;
    return { voices: this.#voices(body, true), nextPageToken: hasMore ? String(page + 1) : null };
  }

  async adopt(
    source: CatalogSource,
    voice: { providerVoiceId: string; publicOwnerId?: string | undefined; name: string },
    signal: AbortSignal,
  ): Promise<{ providerVoiceId: string; name: string }> {
    if (!isElevenLabsVoiceId(voice.providerVoiceId)) throw notAVoice();
    if (source === 'own') {
      const body = await this.#get(
        `/v1/voices/${encodeURIComponent(voice.providerVoiceId)}`,
        signal,
      );
      return {
        providerVoiceId: voice.providerVoiceId,
        name: stringField(body, 'name') ?? voice.name,
      };
    }
    if (!voice.publicOwnerId || !isElevenLabsVoiceId(voice.publicOwnerId)) {
      throw new UpstreamProviderError(
        'rejected',
        'a shared ElevenLabs voice needs its public_owner_id',
        { provider: 'elevenlabs' },
      );
    }
    const body = await this.#http.call(
      {
        method: 'POST',
        path: `/v1/voices/add/${encodeURIComponent(voice.publicOwnerId)}/${encodeURIComponent(voice.providerVoiceId)}`,
        headers: { 'xi-api-key': this.#apiKey, 'content-type': 'application/json' },
        body: Buffer.from(JSON.stringify({ new_name: voice.name })),
      },
      signal,
    );
    const added = stringField(body, 'voice_id');
    if (!added || !isElevenLabsVoiceId(added)) throw malformed('elevenlabs', 'add-voice answer');
    return { providerVoiceId: added, name: voice.name };
  }

  close(): void {
    this.#http.close();
  }

  #get(path: string, signal: AbortSignal): Promise<unknown> {
    return this.#http.call(
      { method: 'GET', path, headers: { 'xi-api-key': this.#apiKey } },
      signal,
    );
  }

  #voices(body: unknown, shared: boolean): VendorVoice[] {
    if (
      typeof body !== 'object' ||
      body === null ||
      !Array.isArray((body as { voices?: unknown }).voices)
    ) {
      throw malformed('elevenlabs', 'voice list');
    }
    return arrayField(body, 'voices').flatMap((entry) => {
      const id = stringField(entry, 'voice_id');
      if (!id) return [];
      const language = stringField(entry, 'language');
      return [
        {
          providerVoiceId: id,
          name: stringField(entry, 'name') ?? id,
          description: stringField(entry, 'description'),
          languages: language ? [language] : [],
          previewUrl: stringField(entry, 'preview_url'),
          publicOwnerId: shared ? stringField(entry, 'public_owner_id') : null,
        },
      ];
    });
  }
}

function invalidToken(): UpstreamProviderError {
  return new UpstreamProviderError('rejected', 'page token is not a page number', {
    provider: 'elevenlabs',
  });
}

function notAVoice(): UpstreamProviderError {
  return new UpstreamProviderError('rejected', 'not an ElevenLabs voice id', {
    provider: 'elevenlabs',
  });
}
