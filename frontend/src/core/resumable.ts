/**
 * Subscriptions that resume from the last `seq` they delivered.
 *
 * graphql-ws re-sends a subscription's payload after it reconnects. The payload's `variables` here is a
 * getter, so each (re)subscribe asks the server for `after: <last seq seen>`: the server replays what
 * was missed from its log, and the cursor drops anything already delivered. Nothing is missed and
 * nothing is delivered twice.
 */
import type { Operation } from './http';
import { SeqCursor } from './seqCursor';

export interface SubscribePayload {
  readonly query: string;
  readonly variables?: Record<string, unknown>;
}

export interface Sink {
  next(value: { data?: unknown; errors?: readonly { message: string }[] | null }): void;
  error(error: unknown): void;
  complete(): void;
}

/** The part of a graphql-ws `Client` this module uses (a fake in tests). */
export interface SubscriptionClient {
  subscribe(payload: SubscribePayload, sink: Sink): () => void;
}

export interface ResumableOptions<T extends { seq: number }, V> {
  operation: Operation<Readonly<Record<string, T>>, V>;
  /** The root field of each result, e.g. "events" or "stallAlerts". */
  field: string;
  /** Every variable but `after`, which the cursor supplies. */
  variables?: Omit<V, 'after'>;
  /** Deliver events after this seq (the position of the snapshot the caller already holds). */
  after: number;
  onItem(item: T): void;
  onError?(message: string): void;
}

export interface Resumable {
  readonly cursor: SeqCursor;
  stop(): void;
}

export function subscribeFromSeq<T extends { seq: number }, V>(
  client: SubscriptionClient,
  options: ResumableOptions<T, V>,
): Resumable {
  const cursor = new SeqCursor(options.after);
  const fixed = options.variables ?? {};
  const payload: SubscribePayload = {
    query: String(options.operation),
    get variables() {
      return { ...fixed, after: cursor.last };
    },
  };
  let stopped = false;
  const dispose = client.subscribe(payload, {
    next(result) {
      if (stopped) return;
      if (result.errors?.length) {
        options.onError?.(result.errors.map((e) => e.message).join('; '));
        return;
      }
      const data = result.data as Record<string, T | undefined> | undefined;
      const item = data?.[options.field];
      if (item && cursor.accept(item.seq)) options.onItem(item);
    },
    error(error) {
      if (!stopped) options.onError?.(describeSocketError(error));
    },
    complete() {},
  });
  return {
    cursor,
    stop() {
      stopped = true;
      dispose();
    },
  };
}

export function describeSocketError(error: unknown): string {
  if (Array.isArray(error)) return error.map((e) => (e as { message?: string }).message ?? String(e)).join('; ');
  if (error && typeof error === 'object' && 'code' in error) {
    const close = error as { code: number; reason?: string };
    return `connection closed (${close.code}${close.reason ? `: ${close.reason}` : ''})`;
  }
  return error instanceof Error ? error.message : String(error);
}
