// One light / dark choice for the dashboard and GraphiQL. GraphiQL remembers its theme under its own key
// from its first load on, and from then on ignores the theme it is given to start with: a person who
// later switches the dashboard to dark would still open GraphiQL (a link from the dashboard) in light.
// So the storage GraphiQL is given keeps its theme under the dashboard's key instead: GraphiQL starts in
// the dashboard's choice on every load, and a choice made in GraphiQL's settings is the dashboard's
// too ("System" forgets it, and both follow the system again). Everything else GraphiQL stores goes to
// localStorage under GraphiQL's own keys, as it would without this.
import type { Storage as GraphiQLStorage } from '@graphiql/toolkit';

import { storedTheme, THEME_KEY } from '../src/core/theme';

const GRAPHIQL_PREFIX = 'graphiql:';
export const GRAPHIQL_THEME_KEY = `${GRAPHIQL_PREFIX}theme`;

function graphiqlKeys(local: Storage): string[] {
  const keys = Array.from({ length: local.length }, (_, index) => local.key(index));
  return keys.filter((key): key is string => key?.startsWith(GRAPHIQL_PREFIX) ?? false);
}

/** GraphiQL's storage on `local`, its theme being the dashboard's (`flightdeck.theme`). */
export function sharedThemeStorage(local: Storage): GraphiQLStorage {
  return {
    getItem: (key) => (key === GRAPHIQL_THEME_KEY ? storedTheme(local) : local.getItem(key)),
    setItem(key, value) {
      if (key !== GRAPHIQL_THEME_KEY) local.setItem(key, value);
      else if (value === 'light' || value === 'dark') local.setItem(THEME_KEY, value);
      else local.removeItem(THEME_KEY);
    },
    removeItem: (key) => local.removeItem(key === GRAPHIQL_THEME_KEY ? THEME_KEY : key),
    get length() {
      return graphiqlKeys(local).length;
    },
    // GraphiQL's "clear storage" clears what GraphiQL keeps; the theme is the dashboard's and stays.
    clear() {
      for (const key of graphiqlKeys(local)) local.removeItem(key);
    },
  };
}
