import { type HttpContext, send } from '../internal/http.ts';
import type { RequestOptions } from '../options.ts';
import type { ModelList } from '../types/models.ts';

/** `GET /v1/models`: what this deployment runs. */
export class Models {
  /** @internal */
  constructor(private readonly http: HttpContext) {}

  /**
   * The language models and speech-to-text engines of the deployment. The OpenAPI document
   * lists every provider the software supports; this lists the ones this deployment offers.
   *
   * @example
   * ```ts
   * const { language_models } = await client.models.list();
   * const model = language_models.find((m) => m.tools) ?? language_models[0];
   * if (model) await client.agents.update(agentId, { llm_provider: model.provider, llm_model: model.model });
   * ```
   */
  async list(options?: RequestOptions): Promise<ModelList> {
    const call = { method: 'GET', path: '/v1/models', expect: 'json', idempotent: true } as const;
    return (await send<ModelList>(this.http, call, options)).body;
  }
}
