/** The dashboard shell: connection, API key, navigation, and the view the hash names. */
import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';

import type { KeyStore } from '../core/apiKey';
import { AuthRequired, createHttp } from '../core/http';
import { createLiveClient, wsUrl, type ConnectionState } from '../core/live';
import { ConnectionContext, type Connection } from './connection';
import { useHashPath } from './hooks';
import { KeyForm } from './KeyForm';
import { DOMAINS } from './registry';
import { href, route } from './router';
import { DomainsContext } from './sections';
import { Shell } from './Shell';

const VIEWS = DOMAINS.flatMap((d) => d.views);
const NAV = DOMAINS.flatMap((d) => d.nav);

export function App({ keys }: { keys: KeyStore }) {
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
      if (error instanceof AuthRequired) askForKey();
    },
    [askForKey],
  );

  const connection = useMemo<Connection | null>(
    () => (client ? { http, live: client, state, report } : null),
    [http, client, state, report],
  );

  const path = useHashPath();
  if (needKey) {
    return (
      <KeyForm
        refused={keyRefused}
        onSubmit={(value) => {
          keys.set(value);
          setKey(value);
          setNeedKey(false);
        }}
      />
    );
  }
  if (!connection) return <p className="loading">Connecting…</p>;

  const matched = route(VIEWS, path);
  const forget = key
    ? () => {
        keys.clear();
        setKey(null);
        askForKey();
      }
    : undefined;
  let content: ReactNode;
  if (matched) {
    const View = matched.view.component;
    content = <View params={matched.params} />;
  } else {
    content = (
      <section aria-labelledby="not-found">
        <h1 id="not-found">Nothing here</h1>
        <p>
          No view is called <code>{path}</code>. <a href={href('/')}>Go to the overview.</a>
        </p>
      </section>
    );
  }
  return (
    <ConnectionContext.Provider value={connection}>
      <DomainsContext.Provider value={DOMAINS}>
        <Providers>
          <Shell nav={NAV} path={path} state={state} onForgetKey={forget}>
            {content}
          </Shell>
        </Providers>
      </DomainsContext.Provider>
    </ConnectionContext.Provider>
  );
}

function Providers({ children }: { children: ReactNode }) {
  return DOMAINS.reduceRight<ReactNode>((inner, domain) => {
    const Provider = domain.provider;
    return Provider ? <Provider>{inner}</Provider> : inner;
  }, children);
}
