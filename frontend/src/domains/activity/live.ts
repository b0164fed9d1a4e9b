/**
 * The activity page's state: the event log, newest first, filtered (kinds, entity, root type, time),
 * page by page into the past, and a live tail of what matches the filter from the moment it opened.
 */
import type { LoggedEvent } from '../../core/events';
import { ActivityDocument, EventsDocument, LatestSeqDocument, type EventFilter } from '../../core/graphql.generated';
import type { GraphQLHttp } from '../../core/http';
import { subscribeFromSeq, type Resumable, type SubscriptionClient } from '../../core/resumable';
import { Store } from '../../core/store';

export const ACTIVITY_PAGE = 100;
/** The tail keeps the newest this many events on screen (older ones stay a page away). */
export const TAIL_LIMIT = 500;

export interface ActivityQuery {
  kinds: readonly string[];
  entityId: string;
  rootType: string;
  since: string;
  until: string;
}

export function parseActivityQuery(query: string): ActivityQuery {
  const p = new URLSearchParams(query);
  const time = (v: string | null) => (v && !Number.isNaN(Date.parse(v)) ? v : '');
  return {
    kinds: (p.get('kinds') ?? '')
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean)
      .slice(0, 50),
    entityId: (p.get('entity') ?? '').slice(0, 100),
    rootType: (p.get('root') ?? '').slice(0, 40),
    since: time(p.get('since')),
    until: time(p.get('until')),
  };
}

export function formatActivityQuery(q: ActivityQuery): string {
  const p = new URLSearchParams();
  if (q.kinds.length) p.set('kinds', q.kinds.join(','));
  if (q.entityId) p.set('entity', q.entityId);
  if (q.rootType) p.set('root', q.rootType);
  if (q.since) p.set('since', q.since);
  if (q.until) p.set('until', q.until);
  return p.toString();
}

export function eventFilter(q: ActivityQuery): EventFilter {
  return {
    ...(q.kinds.length ? { kinds: [...q.kinds] } : {}),
    ...(q.entityId ? { entityId: q.entityId } : {}),
    ...(q.rootType ? { rootType: q.rootType } : {}),
    ...(q.since ? { since: new Date(q.since).toISOString() } : {}),
    ...(q.until ? { until: new Date(q.until).toISOString() } : {}),
  };
}

export interface ActivityState {
  loaded: boolean;
  /** Newest first, one per seq. */
  events: readonly LoggedEvent[];
  hasOlder: boolean;
  error: string | null;
}

/** Add events to a newest-first list, each seq once, keeping at most `limit`. */
export function mergeEvents(held: readonly LoggedEvent[], more: readonly LoggedEvent[], limit: number): LoggedEvent[] {
  const seen = new Set(held.map((e) => e.seq));
  const fresh = more.filter((e) => !seen.has(e.seq));
  if (!fresh.length) return held as LoggedEvent[];
  return [...fresh, ...held].sort((a, b) => b.seq - a.seq).slice(0, limit);
}

export class ActivityFeed {
  readonly store = new Store<ActivityState>({ loaded: false, events: [], hasOlder: false, error: null });
  private stream: Resumable | null = null;
  private stopped = false;

  constructor(
    private query: ActivityQuery,
    private deps: { http: GraphQLHttp; client: SubscriptionClient; onFailure(error: unknown): void },
  ) {}

  async start(): Promise<void> {
    const { http, client } = this.deps;
    try {
      const { latestSeq } = await http.request(LatestSeqDocument);
      await this.readOlder(0);
      // A time range that has ended gets nothing new: no tail.
      if (this.stopped || (this.query.until && Date.parse(this.query.until) <= Date.now())) return;
      const { since: _since, until: _until, ...live } = eventFilter(this.query);
      this.stream = subscribeFromSeq(client, {
        operation: EventsDocument,
        field: 'events',
        variables: { filter: live },
        after: latestSeq,
        onItem: (event) => this.store.update((s) => ({ ...s, events: mergeEvents(s.events, [event], Math.max(TAIL_LIMIT, s.events.length)) })),
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
  }

  /** The next page into the past, after the oldest event held. */
  async older(): Promise<void> {
    const oldest = this.store.get().events.at(-1);
    if (oldest) await this.readOlder(oldest.seq);
  }

  private async readOlder(after: number): Promise<void> {
    const page = await this.deps.http.request(ActivityDocument, { first: ACTIVITY_PAGE, after, filter: eventFilter(this.query) });
    if (this.stopped) return;
    const events = page.events.edges.map((e) => e.node);
    this.store.update((s) => ({
      loaded: true,
      events: mergeEvents(s.events, events, Number.MAX_SAFE_INTEGER),
      hasOlder: page.events.pageInfo.hasNextPage,
      error: null,
    }));
  }
}
