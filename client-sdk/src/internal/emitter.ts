/** Typed listeners by event name; a throwing listener never breaks the others. */
export class Emitter<M extends object> {
  readonly #listeners = new Map<keyof M, Set<(payload: never) => void>>();

  on<K extends keyof M>(name: K, listener: (payload: M[K]) => void): () => void {
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

  emit<K extends keyof M>(name: K, payload: M[K]): void {
    const set = this.#listeners.get(name);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        (listener as (payload: M[K]) => void)(payload);
      } catch (error) {
        // An app bug in one listener must not stop the client or other listeners.
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
