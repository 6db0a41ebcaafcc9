import {
  failureOfStatus,
  plainText,
  WebSearchError,
  type WebSearchProvider,
  type WebSearchResult,
} from './provider.ts';

interface SearxngResult {
  title?: unknown;
  url?: unknown;
  content?: unknown;
  publishedDate?: unknown;
}

/**
 * A self-hosted SearXNG: `GET /search?q=&format=json` (the instance must list `json` in
 * `search.formats`, else it answers 403); results in `results` (`title`, `url`,
 * `content`, `publishedDate`), already ranked across its engines.
 */
export class SearxngSearch implements WebSearchProvider {
  readonly name = 'searxng';

  constructor(private readonly options: { baseUrl: string; timeoutMs: number }) {}

  async search(query: string, count: number, signal: AbortSignal): Promise<WebSearchResult[]> {
    const base = this.options.baseUrl.endsWith('/')
      ? this.options.baseUrl
      : `${this.options.baseUrl}/`;
    const url = new URL('search', base);
    url.searchParams.set('q', query);
    url.searchParams.set('format', 'json');
    let response: Response;
    try {
      response = await fetch(url, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.options.timeoutMs)]),
      });
    } catch (error) {
      throw new WebSearchError('unavailable', 'SearXNG could not be reached', { cause: error });
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new WebSearchError(
        failureOfStatus(response.status),
        `SearXNG answered ${response.status}`,
      );
    }
    let body: { results?: SearxngResult[] };
    try {
      body = (await response.json()) as typeof body;
    } catch (error) {
      throw new WebSearchError('unavailable', 'SearXNG answered no JSON', { cause: error });
    }
    const results: WebSearchResult[] = [];
    for (const item of body.results ?? []) {
      if (typeof item.url !== 'string' || typeof item.title !== 'string') continue;
      results.push({
        title: plainText(item.title),
        url: item.url,
        snippet: typeof item.content === 'string' ? plainText(item.content) : '',
        ...(typeof item.publishedDate === 'string' ? { age: item.publishedDate } : {}),
      });
      if (results.length === count) break;
    }
    return results;
  }
}
