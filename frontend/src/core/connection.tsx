/**
 * The server connection every view uses: GraphQL over HTTP, the shared WebSocket, its state; and the
 * shell's side of it (useServerConnection): the API key, and one WebSocket per key.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useState } from 'react';

import type { KeyStore } from './apiKey';
import { AuthRequired, createHttp, type GraphQLHttp } from './http';
import { createLiveClient, wsUrl, type ConnectionState } from './live';
import type { SubscriptionClient } from './resumable';

export interface Connection {
  http: GraphQLHttp;
  live: SubscriptionClient;
  state: ConnectionState;
  /** Tell the shell a request failed; an authentication failure brings up the key form. */
  report(error: unknown): void;
}

export const ConnectionContext = createContext<Connection | null>(null);

export function useConnection(): Connection {
  const connection = useContext(ConnectionContext);
  if (!connection) throw new Error('useConnection outside the dashboard shell');
  return connection;
}

export interface ServerConnection {
  /** Null while the WebSocket is being set up, or while a key is asked for. */
  connection: Connection | null;
  state: ConnectionState;
  /** The key form is up; `keyRefused` says the key held was refused (rather than missing). */
  needKey: boolean;
  keyRefused: boolean;
  submitKey(key: string): void;
  /** Forget the key held (none in dev mode: then undefined). */
  forgetKey: (() => void) | undefined;
}

export function useServerConnection(keys: KeyStore): ServerConnection {
  const [key, setKey] = useState(() => keys.get());
  const [keyRefused, setKeyRefused] = useState(false);
  const [needKey, setNeedKey] = useState(false);
  const [state, setState] = useState<ConnectionState>('connecting');
  const [client, setClient] = useState<Connection['live'] | null>(null);
  const endpoint = useMemo(() => new URL('/graphql', window.location.href).href, []);

  const askForKey = useCallback(() => {
    setKeyRefused(keys.get() !== null);
    setNeedKey(true);
  }, [keys]);

  // One WebSocket per key; a new key replaces it.
  useEffect(() => {
    if (needKey) return undefined;
    // A disposed client still reports its socket closing; only the current one may set the state.
    let current = true;
    const live = createLiveClient(wsUrl(endpoint), keys.get, (next) => {
      if (!current) return;
      setState(next);
      if (next === 'unauthorized') askForKey();
    });
    setClient(live);
    return () => {
      current = false;
      setClient(null);
      // Disposing while the socket is still connecting rejects with that socket's close event
      // (e.g. 4403 for the key just refused): nothing is left to clean up then.
      Promise.resolve(live.dispose()).catch(() => {});
    };
  }, [endpoint, keys, key, needKey, askForKey]);

  const http = useMemo(() => createHttp(endpoint, keys.get, (input, init) => fetch(input, init)), [endpoint, keys]);
  const report = useCallback(
    (error: unknown) => {
      // A refusal of a key already replaced (a request still in flight when a new key was entered)
      // says nothing about the key held now.
      if (error instanceof AuthRequired && error.key === keys.get()) askForKey();
    },
    [askForKey, keys],
  );

  const connection = useMemo<Connection | null>(
    () => (client ? { http, live: client, state, report } : null),
    [http, client, state, report],
  );

  return {
    connection,
    state,
    needKey,
    keyRefused,
    submitKey: (value) => {
      keys.set(value);
      setKey(value);
      setNeedKey(false);
    },
    forgetKey: key
      ? () => {
          keys.clear();
          setKey(null);
          askForKey();
        }
      : undefined,
  };
}
