import { StorageAPI } from '@graphiql/toolkit';
import { describe, expect, it } from 'vitest';

import { THEME_KEY } from '../src/core/theme';
import { GRAPHIQL_THEME_KEY, sharedThemeStorage } from './sharedTheme';

function memoryStorage(entries: Record<string, string> = {}): Storage {
  const items = new Map(Object.entries(entries));
  return {
    get length() {
      return items.size;
    },
    key: (index: number) => [...items.keys()][index] ?? null,
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
    clear: () => items.clear(),
  };
}

describe("GraphiQL's theme is the dashboard's", () => {
  it("starts GraphiQL in the dashboard's remembered choice, whatever GraphiQL remembered itself", () => {
    const local = memoryStorage({ [THEME_KEY]: 'dark', [GRAPHIQL_THEME_KEY]: 'light' });
    expect(new StorageAPI(sharedThemeStorage(local)).get('theme')).toBe('dark');
    expect(new StorageAPI(sharedThemeStorage(memoryStorage())).get('theme')).toBeNull();
  });

  it("remembers a choice made in GraphiQL as the dashboard's; System forgets it", () => {
    const local = memoryStorage();
    const graphiql = new StorageAPI(sharedThemeStorage(local));
    graphiql.set('theme', 'light');
    expect(local.getItem(THEME_KEY)).toBe('light');
    expect(local.getItem(GRAPHIQL_THEME_KEY)).toBeNull();
    graphiql.set('theme', ''); // GraphiQL's "System"
    expect(local.getItem(THEME_KEY)).toBeNull();
  });

  it("keeps everything else under GraphiQL's own keys, and clears only those", () => {
    const local = memoryStorage({ [THEME_KEY]: 'dark', 'flightdeck.other': 'kept' });
    const graphiql = new StorageAPI(sharedThemeStorage(local));
    graphiql.set('query', '{ __typename }');
    expect(local.getItem('graphiql:query')).toBe('{ __typename }');
    expect(graphiql.get('query')).toBe('{ __typename }');
    expect(sharedThemeStorage(local).length).toBe(1);
    graphiql.clear();
    expect(local.getItem('graphiql:query')).toBeNull();
    expect(local.getItem(THEME_KEY)).toBe('dark');
    expect(local.getItem('flightdeck.other')).toBe('kept');
  });
});
