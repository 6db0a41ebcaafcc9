import {
  failureOfStatus,
  plainText,
  WebSearchError,
  type WebSearchProvider,
  type WebSearchResult,
} from './provider.ts';

interface BraveWebResult {
  title?: unknown;
  url?: unknown;
  description?: unknown;
  age?: unknown;
}

/**
 * Brave Search API, web search: `GET /res/v1/web/search?q=&count=` with the key in
 * `X-Subscription-Token`; results in `web.results` (`title`, `url`, `description` with
 * `<strong>` highlights, `age`). Errors are `{type: "ErrorResponse", error: {code, ...}}`
 * with 401/403 (key), 422 (parameters) and 429 (rate limit).
 */
export class BraveSearch implements WebSearchProvider {
  readonly name = 'brave';

  constructor(private readonly options: { apiKey: string; baseUrl: string; timeoutMs: number }) {}

  async search(query: string, count: number, signal: AbortSignal): Promise<WebSearchResult[]> {
    const url = new URL('/res/v1/web/search', this.options.baseUrl);
    url.searchParams.set('q', query);
    url.searchParams.set('count', String(Math.min(count, 20)));
    url.searchParams.set('text_decorations', 'false');
    let response: Response;
    try {
      response = await fetch(url, {
        headers: {
          accept: 'application/json',
          'x-subscription-token': this.options.apiKey,
        },
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.options.timeoutMs)]),
      });
    } catch (error) {
      throw new WebSearchError('unavailable', 'Brave Search could not be reached', {
        cause: error,
      });
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new WebSearchError(
        failureOfStatus(response.status),
        `Brave Search answered ${response.status}`,
      );
    }
    let body: { web?: { results?: BraveWebResult[] } };
    try {
      body = (await response.json()) as typeof body;
    } catch (error) {
      throw new WebSearchError('unavailable', 'Brave Search answered no JSON', { cause: error });
    }
    const results: WebSearchResult[] = [];
    for (const item of body.web?.results ?? []) {
      if (typeof item.url !== 'string' || typeof item.title !== 'string') continue;
      results.push({
        title: plainText(item.title),
        url: item.url,
        snippet: typeof item.description === 'string' ? plainText(item.description) : '',
        ...(typeof item.age === 'string' ? { age: item.age } : {}),
      });
    }
    return results.slice(0, count);
  }
}
