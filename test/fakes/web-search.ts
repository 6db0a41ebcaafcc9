import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A page the fake search engines know. */
export interface FakePage {
  title: string;
  url: string;
  /** The snippet; the Brave fake wraps query words in `<strong>` as the real one does. */
  description: string;
  age?: string;
}

/** One request as a fake engine received it; the key appears only as booleans. */
export interface RecordedSearch {
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  auth: { present: boolean; valid: boolean; key?: 'deployment' | 'extra' };
  status: number;
  /** When the request arrived and when its answer was written (`performance.now()`). */
  receivedAt: number;
  answeredAt?: number;
  /** The client went away before the answer was written (a delayed answer it aborted). */
  aborted: boolean;
}

/**
 * The machinery of both search fakes: a real server on 127.0.0.1, pages matched by the
 * words of the query (a page matches when its title or description contains every word),
 * recorded requests and statuses injected per request.
 */
abstract class FakeSearchEngine {
  readonly requests: RecordedSearch[] = [];
  readonly #server: Server;
  readonly #failures: number[] = [];
  #delayMs: (query: string) => number = () => 0;
  #url = '';

  protected constructor(protected readonly pages: readonly FakePage[]) {
    this.#server = createServer((req, res) => this.#handle(req, res));
  }

  get url(): string {
    return this.#url;
  }

  /** The next request answers `status` with the engine's error body. */
  failNext(status: number): this {
    this.#failures.push(status);
    return this;
  }

  /** Every later request is answered `delayMs(its query)` ms after it arrived (0: at once). */
  delay(delayMs: (query: string) => number): this {
    this.#delayMs = delayMs;
    return this;
  }

  async listen(): Promise<void> {
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
    this.#url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  protected matching(query: string): FakePage[] {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    return this.pages.filter((page) => {
      const text = `${page.title} ${page.description}`.toLowerCase();
      return words.every((word) => text.includes(word));
    });
  }

  protected abstract credential(req: IncomingMessage): RecordedSearch['auth'];
  protected abstract answer(
    path: string,
    query: Record<string, string>,
    auth: { present: boolean; valid: boolean },
    failure: number | undefined,
  ): { status: number; type: string; body: string };

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    const query = Object.fromEntries(url.searchParams);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (name === 'x-subscription-token' || typeof value !== 'string') continue;
      headers[name] = value;
    }
    const auth = this.credential(req);
    const answer = this.answer(url.pathname, query, auth, this.#failures.shift());
    const recorded: RecordedSearch = {
      path: url.pathname,
      query,
      headers,
      auth,
      status: answer.status,
      receivedAt: performance.now(),
      aborted: false,
    };
    this.requests.push(recorded);
    const write = () => {
      if (res.destroyed) return;
      recorded.answeredAt = performance.now();
      res.writeHead(answer.status, { 'content-type': answer.type });
      res.end(answer.body);
    };
    const delayMs = this.#delayMs(query.q ?? '');
    if (delayMs === 0) {
      write();
      return;
    }
    const timer = setTimeout(write, delayMs);
    res.on('close', () => {
      if (recorded.answeredAt !== undefined) return;
      clearTimeout(timer);
      recorded.aborted = true;
    });
  }
}

/**
 * Brave Search API: `GET /res/v1/web/search` with `X-Subscription-Token`, answering
 * `{type: "search", query, web: {type: "search", results: [...]}}`, and its
 * `ErrorResponse` bodies (401 SUBSCRIPTION_TOKEN_INVALID, 422 VALIDATION, 429 RATE_LIMITED).
 */
export class FakeBraveSearch extends FakeSearchEngine {
  readonly apiKey = `BSA${randomBytes(12).toString('hex')}`;
  readonly #extraKeys = new Set<string>();

  /** A further key the fake accepts (another subscriber's); requests record which was used. */
  extraKey(): string {
    const key = `BSA${randomBytes(12).toString('hex')}`;
    this.#extraKeys.add(key);
    return key;
  }

  static async start(pages: readonly FakePage[]): Promise<FakeBraveSearch> {
    const fake = new FakeBraveSearch(pages);
    await fake.listen();
    return fake;
  }

  protected credential(req: IncomingMessage): RecordedSearch['auth'] {
    const token = req.headers['x-subscription-token'];
    if (token === this.apiKey) return { present: true, valid: true, key: 'deployment' };
    if (typeof token === 'string' && this.#extraKeys.has(token)) {
      return { present: true, valid: true, key: 'extra' };
    }
    return { present: token !== undefined, valid: false };
  }

  protected answer(
    path: string,
    query: Record<string, string>,
    auth: { present: boolean; valid: boolean },
    failure: number | undefined,
  ) {
    const error = (status: number, code: string, detail: string) => ({
      status,
      type: 'application/json',
      body: JSON.stringify({
        type: 'ErrorResponse',
        error: { id: randomUUID(), status, code, detail, meta: {} },
        time: Math.floor(Date.now() / 1000),
      }),
    });
    if (path !== '/res/v1/web/search') return error(404, 'NOT_FOUND', 'Resource not found.');
    if (!auth.valid) {
      return error(
        401,
        'SUBSCRIPTION_TOKEN_INVALID',
        'The provided subscription token is invalid.',
      );
    }
    if (failure === 429) return error(429, 'RATE_LIMITED', 'Request rate limit exceeded for plan.');
    if (failure !== undefined) return error(failure, 'SERVER_ERROR', 'Unexpected error.');
    const q = query.q ?? '';
    const count = Number(query.count ?? 20);
    if (q === '' || !(count >= 1 && count <= 20)) {
      return error(422, 'VALIDATION', 'Unable to validate request parameter(s).');
    }
    const decorate = query.text_decorations !== 'false';
    const words = q.toLowerCase().split(/\s+/).filter(Boolean);
    const results = this.matching(q)
      .slice(0, count)
      .map((page) => ({
        title: page.title,
        url: page.url,
        is_source_local: false,
        is_source_both: false,
        description: decorate ? highlight(page.description, words) : page.description,
        ...(page.age ? { age: page.age, page_age: '2026-11-20T00:00:00' } : {}),
        language: 'en',
        family_friendly: true,
        type: 'search_result',
        subtype: 'generic',
        meta_url: {
          scheme: 'https',
          netloc: new URL(page.url).host,
          path: new URL(page.url).pathname,
        },
      }));
    return {
      status: 200,
      type: 'application/json',
      body: JSON.stringify({
        query: { original: q, show_strict_warning: false, is_navigational: false },
        mixed: {
          type: 'mixed',
          main: results.map((_, index) => ({ type: 'web', index, all: false })),
        },
        type: 'search',
        web: { type: 'search', results, family_friendly: true },
      }),
    };
  }
}

/**
 * SearXNG: `GET /search?q=&format=json` answering `{query, number_of_results, results:
 * [{url, title, content, engine, ...}], answers, infoboxes, suggestions, ...}`; a request
 * without `format=json`, or with JSON turned off, is 403 as on a default instance.
 */
export class FakeSearxng extends FakeSearchEngine {
  static async start(pages: readonly FakePage[]): Promise<FakeSearxng> {
    const fake = new FakeSearxng(pages);
    await fake.listen();
    return fake;
  }

  protected credential() {
    return { present: false, valid: true };
  }

  protected answer(path: string, query: Record<string, string>, _auth: unknown, failure?: number) {
    if (path !== '/search') return { status: 404, type: 'text/html', body: 'Not Found' };
    if (query.format !== 'json' || failure === 403) {
      return { status: 403, type: 'text/html', body: '<h1>Forbidden</h1>' };
    }
    if (failure !== undefined) return { status: failure, type: 'text/html', body: 'Error' };
    const q = query.q ?? '';
    const results = this.matching(q).map((page, index) => ({
      url: page.url,
      title: page.title,
      content: page.description,
      publishedDate: page.age ?? null,
      engine: 'duckduckgo',
      engines: ['duckduckgo', 'brave'],
      positions: [index + 1],
      score: 2 / (index + 1),
      category: 'general',
      template: 'default.html',
      parsed_url: ['https', new URL(page.url).host, new URL(page.url).pathname, '', '', ''],
    }));
    return {
      status: 200,
      type: 'application/json',
      body: JSON.stringify({
        query: q,
        number_of_results: 0,
        results,
        answers: [],
        corrections: [],
        infoboxes: [],
        suggestions: [],
        unresponsive_engines: [],
      }),
    };
  }
}

function highlight(text: string, words: readonly string[]): string {
  let out = text;
  for (const word of words) {
    out = out.replace(
      new RegExp(`(${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')})`, 'gi'),
      '<strong>$1</strong>',
    );
  }
  return out;
}
