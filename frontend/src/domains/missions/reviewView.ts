/**
 * The view of the missions' review list as the Reviews page's URL holds it (`#/reviews?mkind=ASSET&mq=reef`):
 * kinds, search, waiting-since range, order (the nearest deadline first unless it says otherwise) and page, so a view can be shared and survives a reload. The
 * keys start with `m` so the page's other sections can hold views of their own beside it. `mat` is the
 * stack of cursors that led to the page shown (empty: the first page); any change but paging goes back
 * to the first page.
 */
import type { MissionReviewKind, MissionReviewsQueryVariables } from '../../core/graphql.generated';
import { rangeAndSearch, validTime } from '../../core/tableQuery';

export const REVIEW_KINDS: readonly MissionReviewKind[] = ['MISSION', 'HOP_PLAN', 'HOP_IMPLEMENTATION', 'ASSET'];

export interface ReviewView {
  kinds: readonly MissionReviewKind[];
  search: string;
  /** datetime-local values (the browser's zone), or '' for none. */
  since: string;
  until: string;
  /** The nearest deadline first (then the longest waiting), the longest waiting first, or the newest. */
  order: ReviewListOrder;
  at: readonly string[];
  /** Proposals per page, 1 to 100 (the API's cap). */
  size: number;
}

export type ReviewListOrder = 'deadline' | 'oldest' | 'newest';
const ORDERS: readonly ReviewListOrder[] = ['deadline', 'oldest', 'newest'];

export const DEFAULT_VIEW: ReviewView = { kinds: [], search: '', since: '', until: '', order: 'deadline', at: [], size: 20 };

export function parseReviewView(query: string): ReviewView {
  const p = new URLSearchParams(query);
  const size = Number(p.get('msize'));
  return {
    kinds: (p.get('mkind') ?? '').split(',').filter((k): k is MissionReviewKind => REVIEW_KINDS.includes(k as MissionReviewKind)),
    search: (p.get('mq') ?? '').slice(0, 200),
    since: validTime(p.get('msince')),
    until: validTime(p.get('muntil')),
    order: ORDERS.find((o) => o === p.get('morder')) ?? DEFAULT_VIEW.order,
    at: (p.get('mat') ?? '').split('.').filter(Boolean),
    size: Number.isInteger(size) && size >= 1 && size <= 100 ? size : DEFAULT_VIEW.size,
  };
}

/** `view` written into `query` (the hash's query), keeping what other sections hold there. */
export function formatReviewView(view: ReviewView, query = ''): string {
  const p = new URLSearchParams(query);
  const set = (key: string, value: string) => (value ? p.set(key, value) : p.delete(key));
  set('mkind', view.kinds.join(','));
  set('mq', view.search);
  set('msince', view.since);
  set('muntil', view.until);
  set('morder', view.order !== DEFAULT_VIEW.order ? view.order : '');
  set('msize', view.size !== DEFAULT_VIEW.size ? String(view.size) : '');
  set('mat', view.at.join('.'));
  return p.toString();
}

/** The arguments of `missionReviews` for this view (a search under 3 bytes is not sent: the API refuses it). */
export function reviewVariables(view: ReviewView): MissionReviewsQueryVariables {
  const filter = { ...(view.kinds.length ? { kinds: [...view.kinds] } : {}), ...rangeAndSearch(view) };
  return {
    first: view.size,
    after: view.at.at(-1) ?? null,
    filter: Object.keys(filter).length ? filter : null,
    newestFirst: view.order === 'newest',
    orderBy: view.order === 'deadline' ? 'DEADLINE' : 'WAITING',
  };
}

/** A new view of the same list: any change but paging goes back to the first page. */
export function changedView(view: ReviewView, change: Partial<ReviewView>): ReviewView {
  return { ...view, at: [], ...change };
}

/** Whether the view narrows the list (then an empty page says "none match", not "nothing waiting"). */
export function isFiltered(view: ReviewView): boolean {
  return view.kinds.length > 0 || view.search.trim() !== '' || view.since !== '' || view.until !== '';
}
