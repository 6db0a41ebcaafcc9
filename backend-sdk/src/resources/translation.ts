import type { HttpContext } from '../internal/http.ts';
import type { RequestOptions } from '../options.ts';
import type { MessageUsage } from '../types/messages.ts';
import { sseEvents } from './message-stream.ts';

/** A text to translate. */
export interface TranslationPreviewRequest {
  /** At most 4,000 characters. */
  text: string;
  /** BCP 47 tag of the language to translate into (`fr`, `es-MX`). */
  target_language: string;
  /** BCP 47 tag of the text's language; omitted, the model detects it. */
  source_language?: string;
}

/** One event of a translation preview, in the order the service sends them. */
export type TranslationPreviewEvent =
  | {
      event: 'translation';
      data: { request_id: string; target_language: string; source_language: string | null };
    }
  | { event: 'delta'; data: { text: string } }
  | { event: 'usage'; data: MessageUsage }
  | { event: 'done'; data: { text: string } };

const EVENTS = new Set(['translation', 'delta', 'usage', 'done']);

/** `POST /v1/realtime-translation-preview`: a translation streamed as it is written. */
export class Translation {
  /** @internal */
  constructor(private readonly http: HttpContext) {}

  /**
   * Translates a text with the deployment's language model; iterate the events with `for
   * await`. Not retried after it began: a retry would be charged again.
   *
   * @example
   * ```ts
   * for await (const { event, data } of client.translation.preview({ text: 'Hello', target_language: 'fr' })) {
   *   if (event === 'delta') process.stdout.write(data.text);
   * }
   * ```
   */
  preview(
    body: TranslationPreviewRequest,
    options: RequestOptions = {},
  ): AsyncGenerator<TranslationPreviewEvent> {
    const call = {
      method: 'POST',
      path: '/v1/realtime-translation-preview',
      json: body,
      expect: 'stream',
      idempotent: false,
    } as const;
    return sseEvents<TranslationPreviewEvent>(this.http, call, options, EVENTS, 'done');
  }
}
