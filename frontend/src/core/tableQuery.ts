/**
 * A table's view as the hash route's query holds it (`#/plans?status=STALLED&sort=UPDATED_AT.ASC&at=c1.c2`):
 * filter, search, sort and page, so a view can be shared and survives a reload. `at` is the stack of
 * cursors that led to the page shown (empty: the first page); a cursor is only valid in its sort.
 */
export type SortField = 'CREATED_AT' | 'UPDATED_AT' | 'STATUS' | 'DURATION';
export type Direction = 'ASC' | 'DESC';

export interface TableQuery {
  status: readonly string[];
  search: string;
  /** ISO times, or '' for none. */
  since: string;
  until: string;
  sort: SortField;
  dir: Direction;
  at: readonly string[];
  /** Rows per page, 1 to 100 (the API's cap). */
  size: number;
}

export const DEFAULT_QUERY: TableQuery = { status: [], search: '', since: '', until: '', sort: 'CREATED_AT', dir: 'DESC', at: [], size: 50 };

const FIELDS: readonly SortField[] = ['CREATED_AT', 'UPDATED_AT', 'STATUS', 'DURATION'];

/** The sorts a time range goes with (on the sorted time); the API refuses a range with the others. */
export function rangeAllowed(sort: SortField): boolean {
  return sort === 'CREATED_AT' || sort === 'UPDATED_AT';
}

/** The query part of a hash (`#/plans?x=1` → `x=1`). */
export function hashQuery(hash: string): string {
  const i = hash.indexOf('?');
  return i < 0 ? '' : hash.slice(i + 1);
}

export function parseTableQuery(query: string, statuses: readonly string[]): TableQuery {
  const p = new URLSearchParams(query);
  const [field, dir] = (p.get('sort') ?? '').split('.');
  const sort = FIELDS.includes(field as SortField) ? (field as SortField) : DEFAULT_QUERY.sort;
  // A range with a sort it cannot go with (an edited or old link) is left out rather than refused.
  const ranged = rangeAllowed(sort);
  return {
    status: (p.get('status') ?? '').split(',').filter((s) => statuses.includes(s)),
    search: (p.get('q') ?? '').slice(0, 200),
    since: ranged ? validTime(p.get('since')) : '',
    until: ranged ? validTime(p.get('until')) : '',
    sort,
    dir: dir === 'ASC' ? 'ASC' : 'DESC',
    at: (p.get('at') ?? '').split('.').filter(Boolean),
    size: pageSize(p.get('size')),
  };
}

function pageSize(value: string | null): number {
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 && n <= 100 ? n : DEFAULT_QUERY.size;
}

/** A time the URL holds, or '' when it is none. */
export function validTime(value: string | null): string {
  return value && !Number.isNaN(Date.parse(value)) ? value : '';
}

export function formatTableQuery(q: TableQuery): string {
  const p = new URLSearchParams();
  if (q.status.length) p.set('status', q.status.join(','));
  if (q.search) p.set('q', q.search);
  if (q.since) p.set('since', q.since);
  if (q.until) p.set('until', q.until);
  if (q.sort !== DEFAULT_QUERY.sort || q.dir !== DEFAULT_QUERY.dir) p.set('sort', `${q.sort}.${q.dir}`);
  if (q.size !== DEFAULT_QUERY.size) p.set('size', String(q.size));
  if (q.at.length) p.set('at', q.at.join('.'));
  return p.toString();
}

/**
 * A list filter's time range and search as the API takes them: times in UTC, and no search under 3
 * bytes (the API refuses it). Shared by the tables and the review lists.
 */
export function rangeAndSearch(view: { since: string; until: string; search: string }) {
  const search = view.search.trim();
  return {
    ...(view.since ? { since: new Date(view.since).toISOString() } : {}),
    ...(view.until ? { until: new Date(view.until).toISOString() } : {}),
    ...(new TextEncoder().encode(search).length >= 3 ? { search } : {}),
  };
}

/** The list arguments the API takes for this view. */
export function listVariables<S extends string = string>(q: TableQuery) {
  const filter = rangeAndSearch(q);
  return {
    first: q.size,
    after: q.at.at(-1) ?? null,
    status: q.status.length ? (q.status as S[]) : null,
    filter: Object.keys(filter).length ? filter : null,
    orderBy: { field: q.sort, direction: q.dir },
  };
}

/** A new view of the same table: any change but paging goes back to the first page. */
export function withChange(q: TableQuery, change: Partial<TableQuery>): TableQuery {
  return { ...q, at: [], ...change };
}

/** Click a column's header: sort by it, or flip the direction if it sorts already. A time range only
 * goes with the time sorts, so sorting by status or duration drops it. */
export function sortedBy(q: TableQuery, field: SortField): TableQuery {
  const range = rangeAllowed(field) ? {} : { since: '', until: '' };
  return withChange(q, { sort: field, dir: q.sort === field && q.dir === 'DESC' ? 'ASC' : 'DESC', ...range });
}

/** The shortest search the server's index answers (bytes of UTF-8); a shorter one would match everything. */
export const MIN_SEARCH_BYTES = 3;

/** A search typed but too short to be applied. */
export function searchTooShort(search: string): boolean {
  const bytes = new TextEncoder().encode(search.trim()).length;
  return bytes > 0 && bytes < MIN_SEARCH_BYTES;
}
