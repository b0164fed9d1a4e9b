/** The API key a person typed in, kept for this browser session only (sessionStorage). */
const KEY = 'flightdeck.apiKey';

export interface KeyStore {
  get(): string | null;
  set(key: string): void;
  clear(): void;
}

export function sessionKeyStore(storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>): KeyStore {
  return {
    get: () => storage.getItem(KEY),
    set: (key) => storage.setItem(KEY, key.trim()),
    clear: () => storage.removeItem(KEY),
  };
}

/** The Authorization header value for a key, or nothing in dev mode (no key). */
export function bearer(key: string | null): string | undefined {
  return key ? `Bearer ${key}` : undefined;
}
