/** React glue: the current hash path, a ticking clock, Store subscriptions, live objects' lifetimes. */
import { useEffect, useState, useSyncExternalStore, type DependencyList } from 'react';

import { pathOf } from './router';
import { hashQuery } from './tableQuery';
import type { Store } from './store';

export function useHashPath(): string {
  const [path, setPath] = useState(() => pathOf(window.location.hash));
  useEffect(() => {
    const onChange = () => setPath(pathOf(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return path;
}

/** The query part of the location hash (`#/plans?status=STALLED` → `status=STALLED`), following changes. */
export function useHashQuery(): string {
  const [query, setQuery] = useState(() => hashQuery(window.location.hash));
  useEffect(() => {
    const onChange = () => setQuery(hashQuery(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return query;
}

export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

export function useStore<T>(store: Store<T>): T {
  return useSyncExternalStore(store.subscribe, store.get);
}

/** Something live (a list, a root) that reads and follows the server from `start` until `stop`. */
export interface Startable {
  start(): unknown;
  stop(): void;
}

/** Create and start a live object, stop it when the view goes or `deps` change; null until it exists. */
export function useStarted<L extends Startable>(create: () => L, deps: DependencyList): L | null {
  const [started, setStarted] = useState<L | null>(null);
  useEffect(() => {
    const live = create();
    setStarted(live);
    void live.start();
    return () => live.stop();
    // `create` is a fresh closure on every render; `deps` are what it reads.
  }, deps);
  return started;
}
