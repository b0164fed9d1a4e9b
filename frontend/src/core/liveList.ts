/**
 * A domain's list of roots (plans, missions, workflows) kept live for as long as the dashboard is open,
 * with the reads that go with it (an inbox, a reviewer's queue) and the domain's own state.
 *
 * Start: read `latestSeq`, then the list and every side read (snapshots at least that new), then follow
 * `events(after: latestSeq, filter: {rootType})`, resuming from the last seq after a reconnect. An event
 * names its root, which is re-read, and the side reads it touches; the keys a burst of events names are
 * read once (core/batch.ts), so counts and states always come from the server.
 *
 * Reads overlap, so an answer may land after the answer to a later read of the same thing. Each read
 * takes a ticket when it is sent; an answer is applied only if no answer to a later read of its key (the
 * root, the side read, or the list for every root in it) was applied before it. Whatever was read last
 * wins, whatever order the answers land in.
 */
import { Batch, type Schedule } from './batch';
import type { LoggedEvent } from './events';
import { EventsDocument, LatestSeqDocument } from './graphql.generated';
import type { GraphQLHttp } from './http';
import { subscribeFromSeq, type Resumable, type SubscriptionClient } from './resumable';
import { Store } from './store';

export interface Root {
  id: string;
  createdAt: string;
}

export interface ListCore<T extends Root> {
  loaded: boolean;
  byId: Readonly<Record<string, T>>;
  /** Newest first, as the API lists them. */
  order: readonly string[];
  /** How many there are (the list holds the newest page of them). */
  total: number;
  error: string | null;
}

/** The list and the domain's own state `X` (its inbox, its alerts, ...) side by side. */
export type ListState<T extends Root, X> = ListCore<T> & X;

type Change<S> = (state: S) => S;

/** A read kept live next to the list: made at start, and again when an event touches it. */
export interface SideRead<X> {
  /** `now` is the clock of this page: the answer may say when it arrived. */
  read(http: GraphQLHttp, now: () => number): Promise<Partial<X>>;
  touchedBy(event: LoggedEvent): boolean;
}

/** A side read of one paged list (a reviewer's queue): its nodes, newest read, under `key`. */
export function nodesSide<X, N>(
  key: keyof X & string,
  read: (http: GraphQLHttp) => Promise<{ edges: readonly { node: N }[] }>,
  touchedBy: (event: LoggedEvent) => boolean,
): SideRead<X> {
  return {
    read: async (http) => ({ [key]: (await read(http)).edges.map((e) => e.node) }) as Partial<X>,
    touchedBy,
  };
}

export interface ListSource<T extends Root, X> {
  /** The events followed: `events(filter: {rootType})`. */
  rootType: string;
  /** The newest page of the list, with how many there are. */
  readList(http: GraphQLHttp): Promise<{ totalCount: number; edges: readonly { node: T }[] }>;
  /** How many roots are held at most, the newest (the size of the page `readList` reads); default: all. */
  limit?: number;
  /** One root as it is now; null if it does not exist (any more) for this tenant. */
  readRoot(http: GraphQLHttp, id: string): Promise<T | null>;
  /** Whether the event is a root's creation (its first event): the list's total counts it. */
  created(event: LoggedEvent): boolean;
  /** The domain's own state before anything is read. */
  initial: X;
  sides?: Readonly<Record<string, SideRead<X>>>;
  /** What an event changes directly, without a read (e.g. a counter). */
  onEvent?(state: ListState<T, X>, event: LoggedEvent): ListState<T, X>;
  /** Further streams that start where the events do (e.g. stall alerts). */
  follow?(
    client: SubscriptionClient,
    after: number,
    update: (change: Change<ListState<T, X>>) => void,
    fail: (message: string) => void,
  ): Resumable[];
}

export interface LiveListDeps {
  http: GraphQLHttp;
  client: SubscriptionClient;
  onFailure(error: unknown): void;
  /** How re-reads are delayed to gather a burst of events; tests pass a synchronous one. */
  schedule?: Schedule;
  now?: () => number;
}

export function initialList<T extends Root, X>(source: ListSource<T, X>): ListState<T, X> {
  return { loaded: false, byId: {}, order: [], total: 0, error: null, ...source.initial };
}

function newestFirst(a: Root, b: Root): number {
  return b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id);
}

/**
 * Insert or replace roots, newest first. At most `limit` are held (the newest): a list followed for hours
 * at tens of new roots a second stays one page long, and each change costs the same. The total is not
 * changed here: a re-read root that is not held may be new or one of the older roots the list never
 * held (its total counts those already), so new roots are counted by their creation events
 * (`ListSource.created`).
 */
export function upsertRoots<T extends Root, S extends ListCore<T>>(state: S, roots: readonly T[], limit = Infinity): S {
  if (roots.length === 0) return state;
  const byId = { ...state.byId };
  for (const root of roots) byId[root.id] = root;
  const sorted = Object.values(byId).sort(newestFirst);
  for (const dropped of sorted.slice(limit)) delete byId[dropped.id];
  const order = sorted.slice(0, limit).map((r) => r.id);
  return { ...state, byId, order };
}

/**
 * The total after `event`: one more when it creates a root the list does not hold. (A root created after
 * the position was read but before the list was is held already: the list's count has it.)
 */
export function countCreated<T extends Root, S extends ListCore<T>>(state: S, event: LoggedEvent, created: (e: LoggedEvent) => boolean): S {
  return created(event) && !state.byId[event.rootId] ? { ...state, total: state.total + 1 } : state;
}

export function rootsInOrder<T extends Root>(state: ListCore<T>): T[] {
  return state.order.flatMap((id) => (state.byId[id] ? [state.byId[id]] : []));
}

/** What is read, as one string key for the batch and the tickets: `root:<id>` or `side:<name>`. */
type Key = `root:${string}` | `side:${string}`;
const rootKey = (id: string): Key => `root:${id}`;
const sideKey = (name: string): Key => `side:${name}`;

export class LiveList<T extends Root, X> {
  readonly store: Store<ListState<T, X>>;
  private streams: Resumable[] = [];
  private rereads: Batch<Key>;
  private stopped = false;
  private issued = 0;
  /** Per key, the ticket of the read whose answer is shown. */
  private shown = new Map<Key, number>();

  constructor(
    private source: ListSource<T, X>,
    private deps: LiveListDeps,
  ) {
    this.store = new Store(initialList(source));
    this.rereads = new Batch((keys) => keys.forEach((key) => void this.read(key)), deps.schedule);
  }

  async start(): Promise<void> {
    const { http, client } = this.deps;
    const sides = Object.entries(this.source.sides ?? {});
    try {
      const { latestSeq } = await http.request(LatestSeqDocument);
      const ticket = ++this.issued;
      const [list, ...patches] = await Promise.all([
        this.source.readList(http),
        ...sides.map(([, side]) => side.read(http, this.now)),
      ]);
      if (this.stopped) return;
      const fresh = list.edges.map((e) => e.node).filter((root) => this.show(rootKey(root.id), ticket));
      const changes = patches.filter((_, i) => this.show(sideKey(sides[i]![0]), ticket));
      this.store.update((s) => {
        const listed = { ...upsertRoots(s, fresh, this.source.limit), total: list.totalCount, loaded: true };
        return changes.reduce((next, patch) => ({ ...next, ...patch }), listed);
      });
      this.streams.push(
        subscribeFromSeq(client, {
          operation: EventsDocument,
          field: 'events',
          variables: { filter: { rootType: this.source.rootType } },
          after: latestSeq,
          onItem: (event) => this.onEvent(event),
          onError: this.fail,
        }),
        ...(this.source.follow?.(client, latestSeq, (change) => this.store.update(change), this.fail) ?? []),
      );
    } catch (error) {
      this.deps.onFailure(error);
      this.fail(error instanceof Error ? error.message : String(error));
    }
  }

  stop(): void {
    this.stopped = true;
    for (const stream of this.streams) stream.stop();
    this.streams = [];
  }

  /** Read a root again soon (e.g. after a decision taken on this page; its events follow anyway). */
  reread(id: string): void {
    this.rereads.add(rootKey(id));
  }

  /** Make a side read again soon (e.g. the reviewer's queue after a decision). */
  refresh(side: string): void {
    this.rereads.add(sideKey(side));
  }

  private now = (): number => (this.deps.now ?? Date.now)();

  private fail = (message: string): void => {
    this.store.update((s) => ({ ...s, error: message }));
  };

  private onEvent(event: LoggedEvent): void {
    const { onEvent, sides = {}, created } = this.source;
    if (created(event)) this.store.update((s) => countCreated(s, event, created));
    if (onEvent) this.store.update((s) => onEvent(s, event));
    this.reread(event.rootId);
    for (const [name, side] of Object.entries(sides)) if (side.touchedBy(event)) this.refresh(name);
  }

  /** True if an answer read with `ticket` is newer than the one shown for `key`, which it then becomes. */
  private show(key: Key, ticket: number): boolean {
    if ((this.shown.get(key) ?? 0) > ticket) return false;
    this.shown.set(key, ticket);
    return true;
  }

  /** One re-read; a failure is reported, and the next event reads again. */
  private async read(key: Key): Promise<void> {
    const ticket = ++this.issued;
    const { http } = this.deps;
    const name = key.slice('root:'.length);
    try {
      if (key.startsWith('side:')) {
        const side = this.source.sides?.[name];
        if (!side) return;
        const patch = await side.read(http, this.now);
        if (!this.stopped && this.show(key, ticket)) this.store.update((s) => ({ ...s, ...patch, error: null }));
        return;
      }
      const root = await this.source.readRoot(http, name);
      if (root && !this.stopped && this.show(key, ticket)) {
        this.store.update((s) => ({ ...upsertRoots(s, [root], this.source.limit), error: null }));
      }
    } catch (error) {
      this.deps.onFailure(error);
    }
  }
}
