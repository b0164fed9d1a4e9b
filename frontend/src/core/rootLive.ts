/**
 * One root (a plan, a workflow, ...) live: its snapshot from a `xxxUpdated(id)` subscription (a fresh one
 * after every change and after every reconnect) and its whole event history, read page by page and then
 * followed with `events(after: last, filter)`, resuming from the last seq after a reconnect.
 */
import type { LoggedEvent } from './events';
import { EventsDocument, HistoryDocument, type EventFilter } from './graphql.generated';
import type { GraphQLHttp, Operation } from './http';
import { describeSocketError, subscribeFromSeq, type Resumable, type SubscriptionClient } from './resumable';
import { mergeBySeq } from './seqCursor';
import { Store } from './store';

export interface RootView<T> {
  root: T | null;
  /** When (this browser's clock, ms) the latest snapshot arrived: countdowns from server seconds start here. */
  receivedAt: number;
  missing: boolean;
  events: readonly LoggedEvent[];
  historyLoaded: boolean;
  error: string | null;
}

export interface RootSource<T> {
  id: string;
  /** The snapshot subscription, taking `$id`. */
  operation: Operation<Readonly<Record<string, T>>, { id: string }>;
  /** Its root field, e.g. `researchPlanUpdated`. */
  field: string;
  /** The event filter that selects this root's events. */
  filter: EventFilter;
}

export const HISTORY_PAGE = 100;

export class RootLive<T> {
  readonly store = new Store<RootView<T>>({
    root: null,
    receivedAt: 0,
    missing: false,
    events: [],
    historyLoaded: false,
    error: null,
  });
  private stops: (() => void)[] = [];
  private stopped = false;

  constructor(
    private source: RootSource<T>,
    private http: GraphQLHttp,
    private client: SubscriptionClient,
    private onFailure: (error: unknown) => void,
    private now: () => number = Date.now,
  ) {}

  start(): void {
    const { operation, field, id } = this.source;
    this.stops.push(
      this.client.subscribe(
        { query: String(operation), variables: { id } },
        {
          next: (result) => {
            const root = (result.data as Record<string, T | undefined> | undefined)?.[field];
            if (root) this.store.update((v) => ({ ...v, root, receivedAt: this.now(), error: null }));
            else if (result.errors?.length) this.store.update((v) => ({ ...v, missing: true }));
          },
          // GraphQL errors (an unknown or malformed id) mean there is no such root for this tenant.
          error: (error) =>
            this.store.update((v) =>
              Array.isArray(error) ? { ...v, missing: true } : { ...v, error: describeSocketError(error) },
            ),
          complete: () => {},
        },
      ),
    );
    void this.loadHistory();
  }

  stop(): void {
    this.stopped = true;
    for (const stop of this.stops) stop();
    this.stops = [];
  }

  private async loadHistory(): Promise<void> {
    let after = 0;
    try {
      for (;;) {
        const page = await this.http.request(HistoryDocument, { rootId: this.source.id, after, first: HISTORY_PAGE });
        const events = page.events.edges.map((e) => e.node);
        if (this.stopped) return;
        this.add(events);
        after = events.at(-1)?.seq ?? after;
        if (!page.events.pageInfo.hasNextPage || !events.length) break;
      }
    } catch (error) {
      this.onFailure(error);
      this.store.update((v) => ({ ...v, error: error instanceof Error ? error.message : String(error) }));
      return;
    }
    if (this.stopped) return;
    this.store.update((v) => ({ ...v, historyLoaded: true }));
    const stream: Resumable = subscribeFromSeq(this.client, {
      operation: EventsDocument,
      field: 'events',
      variables: { filter: this.source.filter },
      after,
      onItem: (event) => this.add([event]),
      onError: (message) => this.store.update((v) => ({ ...v, error: message })),
    });
    this.stops.push(() => stream.stop());
  }

  private add(events: readonly LoggedEvent[]): void {
    this.store.update((v) => {
      const merged = mergeBySeq(v.events, events);
      return merged === v.events ? v : { ...v, events: merged };
    });
  }
}
