/** The server connection every view uses: GraphQL over HTTP, the shared WebSocket, its state. */
import { createContext, useContext } from 'react';

import type { GraphQLHttp } from '../core/http';
import type { ConnectionState } from '../core/live';
import type { SubscriptionClient } from '../core/resumable';

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
