/**
 * One page of a table (plans, missions, workflows) kept live without making it jump: a row on the page
 * whose root an event names is re-read and replaced where it stands; a root that is not on the page
 * (a new one, or one beyond it) only counts towards "N new since you looked", which `reload` clears by
 * reading the page again. A row re-read that no longer matches the table's filter (a plan that started,
 * under "Planning") stays where it stands, marked and counted as leaving, and goes at the next reload;
 * it is not counted in the total any more. The page's total comes from the server (`totalCount`).
 *
 * Start: read `latestSeq`, then the page, then follow `events(after: latestSeq, filter: {rootType})`.
 * Re-reads of a burst of events are gathered (core/batch.ts); the answer to the latest read of a row wins.
 */
import { Batch, type Schedule } from './batch';
import type { LoggedEvent } from './events';
import { EventsDocument, LatestSeqDocument } from './graphql.generated';
import type { GraphQLHttp } from './http';
import { subscribeFromSeq, type Resumable, type SubscriptionClient } from './resumable';
import { Store } from './store';

export interface Page<T> {
  totalCount: number;
  pageInfo: { hasNextPage: boolean; endCursor?: string | null };
  edges: readonly { node: T }[];
}

export interface PageSource<T extends { id: string }> {
  /** The events followed: `events(filter: {rootType})`. */
  rootType: string;
  readPage(http: GraphQLHttp): Promise<Page<T>>;
  /** One row as it is now; null when it is gone. */
  readRow(http: GraphQLHttp, id: string): Promise<T | null>;
  /** Whether a row (re-read) still matches the page's filter; omitted: every row does. */
  matches?(row: T): boolean;
}

export interface PageState<T> {
  loaded: boolean;
  rows: readonly T[];
  total: number;
  hasNext: boolean;
  endCursor: string | null;
  /** Roots changed or created since the page was read that are not on it. */
  unseen: number;
  /** Rows on the page that no longer match its filter: they leave at the next reload. */
  leaving: ReadonlySet<string>;
  error: string | null;
}

const NONE: ReadonlySet<string> = new Set();

export interface LivePageDeps {
  http: GraphQLHttp;
  client: SubscriptionClient;
  onFailure(error: unknown): void;
  schedule?: Schedule;
}

export class LivePage<T extends { id: string }> {
  readonly store = new Store<PageState<T>>({
    loaded: false,
    rows: [],
    total: 0,
    hasNext: false,
    endCursor: null,
    unseen: 0,
    leaving: NONE,
    error: null,
  });
  private stream: Resumable | null = null;
  private rereads: Batch<string>;
  private unseen = new Set<string>();
  private issued = 0;
  private shown = new Map<string, number>();
  private stopped = false;

  constructor(
    private source: PageSource<T>,
    private deps: LivePageDeps,
  ) {
    this.rereads = new Batch((ids) => ids.forEach((id) => void this.readRow(id)), deps.schedule);
  }

  async start(): Promise<void> {
    try {
      const { latestSeq } = await this.deps.http.request(LatestSeqDocument);
      await this.reload();
      if (this.stopped) return;
      this.stream = subscribeFromSeq(this.deps.client, {
        operation: EventsDocument,
        field: 'events',
        variables: { filter: { rootType: this.source.rootType } },
        after: latestSeq,
        onItem: (event) => this.onEvent(event),
        onError: this.fail,
      });
    } catch (error) {
      this.deps.onFailure(error);
      this.fail(error instanceof Error ? error.message : String(error));
    }
  }

  stop(): void {
    this.stopped = true;
    this.stream?.stop();
  }

  /** Read the page again: what was unseen is now looked at. */
  async reload(): Promise<void> {
    const ticket = ++this.issued;
    const page = await this.source.readPage(this.deps.http);
    if (this.stopped) return;
    this.unseen.clear();
    for (const edge of page.edges) this.shown.set(edge.node.id, ticket);
    this.store.update((s) => ({
      ...s,
      loaded: true,
      rows: page.edges.map((e) => e.node),
      total: page.totalCount,
      hasNext: page.pageInfo.hasNextPage,
      endCursor: page.pageInfo.endCursor ?? null,
      unseen: 0,
      leaving: NONE,
      error: null,
    }));
  }

  private fail = (message: string): void => {
    this.store.update((s) => ({ ...s, error: message }));
  };

  private onEvent(event: LoggedEvent): void {
    if (this.store.get().rows.some((r) => r.id === event.rootId)) {
      this.rereads.add(event.rootId);
    } else if (!this.unseen.has(event.rootId)) {
      this.unseen.add(event.rootId);
      this.store.update((s) => ({ ...s, unseen: this.unseen.size }));
    }
  }

  private async readRow(id: string): Promise<void> {
    const ticket = ++this.issued;
    try {
      const row = await this.source.readRow(this.deps.http, id);
      if (this.stopped || !row || (this.shown.get(id) ?? 0) > ticket) return;
      this.shown.set(id, ticket);
      const fits = this.source.matches?.(row) ?? true;
      this.store.update((s) => {
        const was = s.leaving.has(id);
        const leaving = new Set(s.leaving);
        if (fits) leaving.delete(id);
        else leaving.add(id);
        // The server's total counted the row when the page was read; it does not any more (or again).
        const total = s.total + (was && fits ? 1 : 0) - (!was && !fits ? 1 : 0);
        return { ...s, rows: s.rows.map((r) => (r.id === id ? row : r)), leaving: was === !fits ? s.leaving : leaving, total };
      });
    } catch (error) {
      this.deps.onFailure(error);
    }
  }
}
