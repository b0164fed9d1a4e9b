/**
 * React glue for what is live: a domain's list (core/liveList.ts) or a kept-live read (core/liveRead.ts),
 * one for the whole page, shared by its views and badges; and one root (core/rootLive.ts) for as long as
 * its view shows.
 *
 * A shared list or read starts when the first view that shows it mounts and stops when the last one
 * goes, so a page reads only what it shows (the providers themselves read nothing).
 */
import { createContext, useContext, useEffect, useMemo, type ReactNode } from 'react';

import { useConnection } from './connection';
import { useStarted, useStore, type Startable } from './hooks';
import { initialList, LiveList, type ListSource, type ListState, type Root } from './liveList';
import { LiveRead, type ReadSource, type ReadState } from './liveRead';
import { RootLive, type RootSource } from './rootLive';
import { Store } from './store';

/**
 * One live object for every view that uses it: created and started on the first `acquire`, stopped
 * when the last user releases it. The stop waits a moment, so a view replaced by another that shows the
 * same thing (a navigation) keeps it running instead of reading it all again.
 */
export class Shared<L extends Startable> {
  readonly current = new Store<L | null>(null);
  private users = 0;
  private pendingStop: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private create: () => L,
    private graceMs = 1000,
  ) {}

  acquire(): () => void {
    this.users += 1;
    if (this.pendingStop !== null) {
      clearTimeout(this.pendingStop);
      this.pendingStop = null;
    }
    if (!this.current.get()) {
      const live = this.create();
      this.current.update(() => live);
      void live.start();
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.users -= 1;
      if (this.users === 0) this.pendingStop = setTimeout(() => this.close(), this.graceMs);
    };
  }

  /** Stop at once (the connection it used is gone). */
  close(): void {
    this.pendingStop = null;
    if (this.users > 0) return;
    this.current.get()?.stop();
    this.current.update(() => null);
  }
}

const nobody = new Store<null>(null);

/** The live object of `shared`, started while the calling view shows; null until started. */
function useShared<L extends Startable>(shared: Shared<L> | null): L | null {
  useEffect(() => shared?.acquire(), [shared]);
  return useStore<L | null>(shared?.current ?? nobody);
}

/** A provider that holds one Shared per connection, and closes it when the connection changes. */
function sharedProvider<L extends Startable>(
  Context: React.Context<Shared<L> | null>,
  create: (deps: ReturnType<typeof useConnection>) => L,
) {
  return function Provider({ children }: { children: ReactNode }) {
    const connection = useConnection();
    const { http, live, report } = connection;
    const shared = useMemo(() => new Shared(() => create(connection)), [http, live, report]);
    useEffect(() => () => shared.close(), [shared]);
    return <Context.Provider value={shared}>{children}</Context.Provider>;
  };
}

export interface LiveListContext<T extends Root, X> {
  Provider(props: { children: ReactNode }): ReactNode;
  /** The list's state, the list started while the calling view shows; the initial state until then. */
  useListState(): ListState<T, X>;
  /** The list itself (to ask for a re-read), null unless a view that shows it started it. */
  useLiveList(): LiveList<T, X> | null;
}

export function liveListContext<T extends Root, X>(source: ListSource<T, X>): LiveListContext<T, X> {
  const Context = createContext<Shared<LiveList<T, X>> | null>(null);
  const notStarted = new Store(initialList(source));
  return {
    Provider: sharedProvider(Context, ({ http, live, report }) => new LiveList(source, { http, client: live, onFailure: report })),
    useListState: () => useStore(useShared(useContext(Context))?.store ?? notStarted),
    useLiveList: () => useStore<LiveList<T, X> | null>(useContext(Context)?.current ?? nobody),
  };
}

export interface LiveReadContext<T> {
  Provider(props: { children: ReactNode }): ReactNode;
  /** The read's state, kept live while the calling view shows. */
  useRead(): ReadState<T>;
  /** Ask for the read again (after a decision taken on this page). */
  useRefresh(): () => void;
}

export function liveReadContext<T>(source: ReadSource<T>): LiveReadContext<T> {
  const Context = createContext<Shared<LiveRead<T>> | null>(null);
  const notStarted = new Store<ReadState<T>>({ value: null, error: null });
  return {
    Provider: sharedProvider(Context, ({ http, live, report }) => new LiveRead(source, { http, client: live, onFailure: report })),
    useRead: () => useStore(useShared(useContext(Context))?.store ?? notStarted),
    useRefresh: () => {
      const read = useStore<LiveRead<T> | null>(useContext(Context)?.current ?? nobody);
      return () => read?.refresh();
    },
  };
}

/** Providers nested, the first outermost (a domain with several shared lists and reads). */
export function nested(...providers: ((props: { children: ReactNode }) => ReactNode)[]) {
  return function Nested({ children }: { children: ReactNode }) {
    return providers.reduceRight<ReactNode>((inner, P) => <P>{inner}</P>, children);
  };
}

/** One root live while the view shows it; null until started. */
export function useRootLive<T>(source: RootSource<T>): RootLive<T> | null {
  const { http, live, report } = useConnection();
  return useStarted(() => new RootLive(source, http, live, report), [source.id, http, live, report]);
}
