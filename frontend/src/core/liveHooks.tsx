/**
 * React glue for what is live: a domain's list (core/liveList.ts) for the whole page, one provider shared
 * by its views and badges; and one root (core/rootLive.ts) for as long as its view shows.
 */
import { createContext, useContext, type ReactNode } from 'react';

import { useConnection } from './connection';
import { useStarted, useStore } from './hooks';
import { initialList, LiveList, type ListSource, type ListState, type Root } from './liveList';
import { RootLive, type RootSource } from './rootLive';
import { Store } from './store';

export interface LiveListContext<T extends Root, X> {
  Provider(props: { children: ReactNode }): ReactNode;
  /** The list's state; the initial state until the provider has started the list. */
  useListState(): ListState<T, X>;
  /** The list itself (to ask for a re-read), null until started. */
  useLiveList(): LiveList<T, X> | null;
}

export function liveListContext<T extends Root, X>(source: ListSource<T, X>): LiveListContext<T, X> {
  const Context = createContext<LiveList<T, X> | null>(null);
  const notStarted = new Store(initialList(source));
  return {
    Provider({ children }) {
      const { http, live, report } = useConnection();
      const list = useStarted(() => new LiveList(source, { http, client: live, onFailure: report }), [http, live, report]);
      return <Context.Provider value={list}>{children}</Context.Provider>;
    },
    useListState: () => useStore(useContext(Context)?.store ?? notStarted),
    useLiveList: () => useContext(Context),
  };
}

/** One root live while the view shows it; null until started. */
export function useRootLive<T>(source: RootSource<T>): RootLive<T> | null {
  const { http, live, report } = useConnection();
  return useStarted(() => new RootLive(source, http, live, report), [source.id, http, live, report]);
}
