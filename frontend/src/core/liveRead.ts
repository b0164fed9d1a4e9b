/**
 * One read kept live (a count, a queue's first page): read at start, then again after the events that
 * may change it, a burst of them gathered into one read. Cheaper than a live list (core/liveList.ts)
 * when a view shows a number or a page, not every root: the navigation badge and the overview's counts
 * read this way, so no page loads a list it does not show.
 *
 * Start: read `latestSeq`, then the value (at least that new), then follow `events(after: latestSeq)`
 * (of one kind of root, or all), resuming from the last seq after a reconnect. Answers may land out of
 * order; the answer to the latest read sent wins.
 */
import { Batch, type Schedule } from './batch';
import type { LoggedEvent } from './events';
import { EventsDocument, LatestSeqDocument } from './graphql.generated';
import type { GraphQLHttp } from './http';
import { subscribeFromSeq, type Resumable, type SubscriptionClient } from './resumable';
import { Store } from './store';

export interface ReadSource<T> {
  /** The events followed: `events(filter: {rootType})`; omitted: every event. */
  rootType?: string;
  read(http: GraphQLHttp): Promise<T>;
  /** Whether an event may change what `read` answers. */
  touchedBy(event: LoggedEvent): boolean;
  /** How long events are gathered before the one read they cause (ms); default 250. */
  gatherMs?: number;
}

export interface ReadState<T> {
  /** Null until the first answer. */
  value: T | null;
  error: string | null;
}

export interface LiveReadDeps {
  http: GraphQLHttp;
  client: SubscriptionClient;
  onFailure(error: unknown): void;
  /** How re-reads are delayed to gather a burst of events; tests pass a synchronous one. */
  schedule?: Schedule;
}

/** 250 ms: a count read once per burst, not once per event, still looks immediate. */
const GATHER_MS = 250;

export class LiveRead<T> {
  readonly store = new Store<ReadState<T>>({ value: null, error: null });
  private stream: Resumable | null = null;
  private stopped = false;
  private issued = 0;
  private shown = 0;
  private rereads: Batch<'read'>;

  constructor(
    private source: ReadSource<T>,
    private deps: LiveReadDeps,
  ) {
    const gather = source.gatherMs ?? GATHER_MS;
    this.rereads = new Batch(() => void this.read(), deps.schedule ?? ((run) => void setTimeout(run, gather)));
  }

  async start(): Promise<void> {
    const { http, client } = this.deps;
    try {
      const { latestSeq } = await http.request(LatestSeqDocument);
      await this.read();
      if (this.stopped) return;
      this.stream = subscribeFromSeq(client, {
        operation: EventsDocument,
        field: 'events',
        variables: this.source.rootType ? { filter: { rootType: this.source.rootType } } : {},
        after: latestSeq,
        onItem: (event) => {
          if (this.source.touchedBy(event)) this.rereads.add('read');
        },
        onError: (message) => this.store.update((s) => ({ ...s, error: message })),
      });
    } catch (error) {
      this.deps.onFailure(error);
      this.store.update((s) => ({ ...s, error: error instanceof Error ? error.message : String(error) }));
    }
  }

  stop(): void {
    this.stopped = true;
    this.stream?.stop();
    this.stream = null;
  }

  /** Read again soon (e.g. after a decision taken on this page; its events follow anyway). */
  refresh(): void {
    this.rereads.add('read');
  }

  private async read(): Promise<void> {
    const ticket = ++this.issued;
    try {
      const value = await this.source.read(this.deps.http);
      if (this.stopped || ticket < this.shown) return;
      this.shown = ticket;
      this.store.update(() => ({ value, error: null }));
    } catch (error) {
      this.deps.onFailure(error);
      if (!this.stopped) this.store.update((s) => ({ ...s, error: error instanceof Error ? error.message : String(error) }));
    }
  }
}
