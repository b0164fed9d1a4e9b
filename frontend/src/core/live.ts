/**
 * The one WebSocket of the dashboard: a graphql-ws client (graphql-transport-ws) that reconnects for
 * ever with back-off and reports its state. Every view's subscriptions share it.
 */
import { createClient, type Client } from 'graphql-ws';

import { bearer } from './apiKey';

export type ConnectionState = 'connecting' | 'live' | 'reconnecting' | 'unauthorized';

/** The server closes with 4403 when connection_init carries a bad key; retrying will not help. */
export const FORBIDDEN_CLOSE = 4403;

function closeCode(event: unknown): number | undefined {
  return event && typeof event === 'object' && 'code' in event ? (event as { code: number }).code : undefined;
}

/** 0.5 s, 1 s, 2 s, ... up to 8 s, plus up to 250 ms of jitter so tabs do not reconnect in step. */
export function retryDelayMs(retries: number, random: () => number = Math.random): number {
  return Math.min(8000, 500 * 2 ** retries) + Math.floor(random() * 250);
}

export function wsUrl(httpUrl: string): string {
  const url = new URL(httpUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.href;
}

export function createLiveClient(
  url: string,
  getKey: () => string | null,
  onState: (state: ConnectionState) => void,
): Client {
  let everConnected = false;
  return createClient({
    url,
    lazy: false,
    retryAttempts: Number.POSITIVE_INFINITY,
    keepAlive: 10_000,
    connectionParams: () => {
      const auth = bearer(getKey());
      return auth ? { Authorization: auth } : {};
    },
    retryWait: (retries) => new Promise((resolve) => setTimeout(resolve, retryDelayMs(retries))),
    shouldRetry: (event) => closeCode(event) !== FORBIDDEN_CLOSE,
    onNonLazyError: () => {},
    on: {
      connecting: () => onState(everConnected ? 'reconnecting' : 'connecting'),
      connected: () => {
        everConnected = true;
        onState('live');
      },
      closed: (event) => onState(closeCode(event) === FORBIDDEN_CLOSE ? 'unauthorized' : 'reconnecting'),
    },
  });
}
