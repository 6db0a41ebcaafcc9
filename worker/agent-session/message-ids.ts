import { v7 as uuidv7 } from 'uuid';

/**
 * Durable message ids (UUIDv7) by the framework's chat item id: the id a user message is
 * persisted and published under, known before the message is persisted, so an
 * application's `input` callback names the message its `transcript` callback reports.
 */
export class MessageIds {
  readonly #ids = new Map<string, string>();

  /** The durable id of the framework item `itemId`, the same on every call. */
  of(itemId: string): string {
    let id = this.#ids.get(itemId);
    if (!id) {
      id = uuidv7();
      this.#ids.set(itemId, id);
    }
    return id;
  }
}
