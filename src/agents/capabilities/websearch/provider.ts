/**
 * The web-search seam of the `web_search_enabled` capability: one adapter per search
 * engine (`brave/`, `searxng/`), each turning a query into ranked results.
 */

/** One result as the model reads it. */
export interface WebSearchResult {
  title: string;
  url: string;
  /** The engine's snippet, as plain text. */
  snippet: string;
  /** How old the page is, when the engine says (free text such as "2 days ago"). */
  age?: string;
}

/**
 * Why a search failed: the engine refused our credential (`auth_rejected`), asked us to
 * slow down (`rate_limited`), or could not be reached or answered badly (`unavailable`).
 */
export type WebSearchFailure = 'auth_rejected' | 'rate_limited' | 'unavailable';

export class WebSearchError extends Error {
  constructor(
    readonly failure: WebSearchFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'WebSearchError';
  }
}

export interface WebSearchProvider {
  /** `brave` or `searxng`. */
  readonly name: string;
  /**
   * At most `count` results, best first. Failures throw `WebSearchError`; aborting
   * `signal` stops the request.
   */
  search(query: string, count: number, signal: AbortSignal): Promise<WebSearchResult[]>;
}

/** Snippets come with highlighting markup and entities: the model gets plain text. */
export function plainText(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&(#\d+|#x[0-9a-f]+|amp|lt|gt|quot|apos|#39|nbsp);/gi, (entity) => {
      const named: Record<string, string> = {
        '&amp;': '&',
        '&lt;': '<',
        '&gt;': '>',
        '&quot;': '"',
        '&apos;': "'",
        '&#39;': "'",
        '&nbsp;': ' ',
      };
      const lower = entity.toLowerCase();
      if (named[lower]) return named[lower];
      const code = lower.startsWith('&#x')
        ? Number.parseInt(lower.slice(3, -1), 16)
        : Number.parseInt(lower.slice(2, -1), 10);
      return Number.isFinite(code) ? String.fromCodePoint(code) : entity;
    })
    .replace(/\s+/g, ' ')
    .trim();
}

/** The failure an HTTP status of a search engine means. */
export function failureOfStatus(status: number): WebSearchFailure {
  if (status === 401 || status === 403) return 'auth_rejected';
  if (status === 429) return 'rate_limited';
  return 'unavailable';
}
