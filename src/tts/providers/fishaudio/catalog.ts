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
import { isFishAudioReferenceId } from './provider.ts';

/**
 * Fish Audio voice models (https://docs.fish.audio/api-reference/endpoint/model/list-models):
 * `GET /model?page_size&page_number&title&self` answering `{total, items: [{_id, title,
 * description, languages, samples, state, visibility, ...}]}` (`page_number` 1-based,
 * `self=true` lists the account's own models); one model: `GET /model/{id}`. Any model
 * the account can see (its own, or public) synthesizes by its `_id` as `reference_id`,
 * so adopting a public model needs no call beyond checking it exists and is trained.
 */
export class FishAudioCatalog implements VendorCatalog {
  readonly #http: JsonUpstream;
  readonly #apiKey: string;

  constructor(options: VendorCatalogOptions) {
    this.#http = new JsonUpstream('fishaudio', options);
    this.#apiKey = options.apiKey;
  }

  async list(query: CatalogQuery, signal: AbortSignal): Promise<VendorCatalogPage> {
    const page = query.pageToken === undefined ? 1 : Number(query.pageToken);
    if (!Number.isSafeInteger(page) || page < 1) {
      throw new UpstreamProviderError('rejected', 'page token is not a page number', {
        provider: 'fishaudio',
      });
    }
    const params = new URLSearchParams({
      page_size: String(query.pageSize),
      page_number: String(page),
    });
    if (query.search) params.set('title', query.search);
    if (query.source === 'own') params.set('self', 'true');
    const body = await this.#get(`/model?${params}`, signal);
    const total = (body as { total?: unknown }).total;
    if (typeof total !== 'number' || !Array.isArray((body as { items?: unknown }).items)) {
      throw malformed('fishaudio', 'model list');
    }
    const voices = arrayField(body, 'items').flatMap((item) => toVoice(item));
    return {
      voices,
      nextPageToken: page * query.pageSize < total ? String(page + 1) : null,
    };
  }

  async adopt(
    _source: CatalogSource,
    voice: { providerVoiceId: string; name: string },
    signal: AbortSignal,
  ): Promise<{ providerVoiceId: string; name: string }> {
    if (!isFishAudioReferenceId(voice.providerVoiceId)) {
      throw new UpstreamProviderError('rejected', 'not a Fish Audio model id', {
        provider: 'fishaudio',
      });
    }
    const body = await this.#get(`/model/${encodeURIComponent(voice.providerVoiceId)}`, signal);
    const state = stringField(body, 'state');
    if (state !== null && state !== 'trained') {
      throw new UpstreamProviderError('rejected', `Fish Audio model is ${state}, not trained`, {
        provider: 'fishaudio',
      });
    }
    return {
      providerVoiceId: voice.providerVoiceId,
      name: stringField(body, 'title') ?? voice.name,
    };
  }

  close(): void {
    this.#http.close();
  }

  #get(path: string, signal: AbortSignal): Promise<unknown> {
    return this.#http.call(
      { method: 'GET', path, headers: { authorization: `Bearer ${this.#apiKey}` } },
      signal,
    );
  }
}

function toVoice(item: unknown): VendorVoice[] {
  const id = stringField(item, '_id');
  if (!id) return [];
  const samples = arrayField(item, 'samples');
  return [
    {
      providerVoiceId: id,
      name: stringField(item, 'title') ?? id,
      description: stringField(item, 'description'),
      languages: arrayField(item, 'languages').filter((l): l is string => typeof l === 'string'),
      previewUrl: stringField(samples[0], 'audio'),
      publicOwnerId: null,
    },
  ];
}
