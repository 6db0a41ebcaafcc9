import type { operations } from '../generated/openapi.ts';

/**
 * The JSON answer of an operation (by its `operationId`) with `status`, as docs/openapi.json
 * describes it. The library's resource types are these, so they cannot drift from the API.
 */
export type ResponseJson<
  Operation extends keyof operations,
  Status extends keyof operations[Operation]['responses'],
> = operations[Operation]['responses'][Status] extends {
  content: { 'application/json': infer Body };
}
  ? Body
  : never;

/** The JSON request body of an operation (by its `operationId`). */
export type RequestJson<Operation extends keyof operations> =
  NonNullable<operations[Operation]['requestBody']> extends {
    content: { 'application/json': infer Body };
  }
    ? Body
    : never;
