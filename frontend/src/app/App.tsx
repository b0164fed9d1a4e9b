/** The dashboard shell: connection, API key, navigation, and the view the hash names. */
import type { ReactNode } from 'react';

import type { KeyStore } from '../core/apiKey';
import { ConnectionContext, useServerConnection } from '../core/connection';
import { useHashPath } from '../core/hooks';
import { route } from '../core/router';
import { DomainsContext } from '../core/sections';
import { UnknownView } from '../ui/NotFound';
import { KeyForm } from './KeyForm';
import { DOMAINS } from './registry';
import { Shell } from './Shell';

const VIEWS = DOMAINS.flatMap((d) => d.views);
const NAV = DOMAINS.flatMap((d) => d.nav);

export function App({ keys }: { keys: KeyStore }) {
  const server = useServerConnection(keys);
  const path = useHashPath();
  if (server.needKey) return <KeyForm refused={server.keyRefused} onSubmit={server.submitKey} />;
  if (!server.connection) return <p className="loading">Connecting…</p>;

  const matched = route(VIEWS, path);
  const View = matched?.view.component;
  return (
    <ConnectionContext.Provider value={server.connection}>
      <DomainsContext.Provider value={DOMAINS}>
        <Providers>
          <Shell nav={NAV} path={path} state={server.state} onForgetKey={server.forgetKey}>
            {View && matched ? <View params={matched.params} /> : <UnknownView path={path} />}
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
