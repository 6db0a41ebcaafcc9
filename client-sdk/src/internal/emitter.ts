import type {
  ConversationEventMap,
  ConversationEventName,
  ConversationListener,
} from '../events.ts';

/** Typed listeners by event name; a throwing listener never breaks the others. */
export class Emitter {
  readonly #listeners = new Map<ConversationEventName, Set<(payload: never) => void>>();

  on<K extends ConversationEventName>(name: K, listener: ConversationListener<K>): () => void {
    let set = this.#listeners.get(name);
    if (!set) {
      set = new Set();
      this.#listeners.set(name, set);
    }
    // A wrapper per subscription: the same function subscribed twice unsubscribes separately.
    const entry = (payload: never) => listener(payload);
    set.add(entry);
    return () => {
      set.delete(entry);
    };
  }

  emit<K extends ConversationEventName>(name: K, payload: ConversationEventMap[K]): void {
    const set = this.#listeners.get(name);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        (listener as ConversationListener<K>)(payload);
      } catch (error) {
        // An app bug in one listener must not stop the conversation or other listeners.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  clear(): void {
    this.#listeners.clear();
  }
}
