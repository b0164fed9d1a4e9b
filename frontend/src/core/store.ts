/** A tiny observable value for React's useSyncExternalStore: `get`, `set` (or `update`), `subscribe`. */
export class Store<T> {
  private listeners = new Set<() => void>();

  constructor(private value: T) {}

  get = (): T => this.value;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  update(change: (value: T) => T): void {
    const next = change(this.value);
    if (next === this.value) return;
    this.value = next;
    for (const listener of this.listeners) listener();
  }
}
