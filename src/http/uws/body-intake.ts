import { rm } from 'node:fs/promises';
import { ApiError } from '../../errors.ts';
import type { Logger } from '../../observability/logger.ts';
import type { BodyBudget } from '../body-budget.ts';
import type { HttpRequest } from '../types.ts';
import type { BodyReceiver } from './body-receiver.ts';
import { BodyTooLargeError } from './read-body.ts';

/** A request body as its headers announce it. */
export interface DeclaredBody {
  contentLength: string | undefined;
  chunked: boolean;
}

/**
 * One request's body on its way in: refused when its declared length is over the route's
 * limit or the server's body budget is spent, then read into memory or a spooled file.
 * `release()` gives the budget back and removes the file once the answer is out.
 */
export class BodyIntake {
  /** Whether the body was read; an unread body must be drained before answering. */
  read = false;
  #reservedBytes = 0;
  #file: string | undefined;

  constructor(
    private readonly receiver: BodyReceiver,
    private readonly limitBytes: number,
    private readonly declared: DeclaredBody,
    private readonly deps: { budget: BodyBudget; spoolDirectory: string; logger: Logger },
  ) {}

  /** Reads the body into `request.body`, or into a file named by `request.bodyFile`. */
  async into(
    request: { -readonly [K in keyof HttpRequest]: HttpRequest[K] },
    spool: boolean,
  ): Promise<void> {
    const { limitBytes, declared } = this;
    if (Number(declared.contentLength) > limitBytes) throw new BodyTooLargeError(limitBytes);
    this.#reservedBytes = declared.chunked ? limitBytes : Number(declared.contentLength);
    if (!this.deps.budget.tryReserve(this.#reservedBytes)) {
      this.#reservedBytes = 0;
      throw new ApiError(
        'service_unavailable',
        'The server is receiving as many request bodies as it accepts at once; retry shortly.',
      );
    }
    this.read = true;
    if (spool) {
      this.#file = await this.receiver.toFile(limitBytes, this.deps.spoolDirectory);
      request.bodyFile = this.#file;
    } else {
      request.body = await this.receiver.toMemory(limitBytes);
    }
  }

  /** Called in the answer's cork: a socket held paused over the body reads again. */
  beforeAnswer(): void {
    this.receiver.resumeForAnswer();
  }

  /** Reads and drops what is left of an unread body, within `limits`. */
  drainAway(limits: { idleMs: number; maxMs: number }): Promise<void> {
    return this.receiver.drainAway(limits);
  }

  release(requestId: string): void {
    this.deps.budget.release(this.#reservedBytes);
    this.#reservedBytes = 0;
    if (this.#file !== undefined) {
      rm(this.#file, { force: true }).catch((error: unknown) =>
        this.deps.logger.warn({ err: error, request_id: requestId }, 'upload not removed'),
      );
    }
  }
}
