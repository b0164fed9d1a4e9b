/**
 * A dense, sortable, filterable, paged table of one domain's roots (plans, missions, workflows), live
 * (core/livePage.ts). The hash route's query holds the view (core/tableQuery.ts): a shared link or a
 * reload shows the same filter, sort and page.
 */
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';

import { useConnection } from '../core/connection';
import { formatCount } from '../core/format';
import { useHashQuery, useStarted, useStore } from '../core/hooks';
import { LivePage, type PageSource } from '../core/livePage';
import {
  formatTableQuery,
  parseTableQuery,
  rangeAllowed,
  searchTooShort,
  MIN_SEARCH_BYTES,
  sortedBy,
  withChange,
  type SortField,
  type TableQuery,
} from '../core/tableQuery';

export interface Column<T> {
  label: string;
  /** The server sorts by this column. */
  sort?: SortField;
  cell(row: T): ReactNode;
}

interface DataTableProps<T extends { id: string }> {
  /** The route (`/plans`); the query follows it. */
  path: string;
  /** Plural noun: "plans". */
  noun: string;
  statuses: readonly string[];
  columns: readonly Column<T>[];
  source(query: TableQuery): PageSource<T>;
  /** `data-<rowAttr>` on each row holds its id, for tests and links. */
  rowAttr: string;
}

export function DataTable<T extends { id: string }>(props: DataTableProps<T>) {
  const { path, noun, statuses, columns, rowAttr } = props;
  const raw = useHashQuery();
  const query = parseTableQuery(raw, statuses);
  const key = formatTableQuery(query);
  const { http, live, report } = useConnection();
  const page = useStarted(() => {
    const source = props.source(query);
    // A re-read row whose state left the status filter no longer matches it.
    const matches = query.status.length ? (row: T) => query.status.includes(String((row as { status?: unknown }).status)) : undefined;
    return new LivePage({ ...source, matches }, { http, client: live, onFailure: report });
  }, [key]);
  const show = (next: TableQuery) => {
    const text = formatTableQuery(next);
    window.location.hash = text ? `${path}?${text}` : path;
  };
  return (
    <div className="data-table" data-testid={`${noun}-table`}>
      <Filters query={query} statuses={statuses} noun={noun} onChange={show} />
      {searchTooShort(query.search) ? (
        <p className="card empty-small" role="status" data-testid={`${noun}-search-short`}>
          A search needs {MIN_SEARCH_BYTES} characters or more: “{query.search.trim()}” is too short to search {noun} by.
          Type more, or clear the search to list every one.
        </p>
      ) : page ? (
        <Body page={page} query={query} columns={columns} noun={noun} rowAttr={rowAttr} onChange={show} />
      ) : null}
    </div>
  );
}

/** A page that is one table under its heading (`#/plans`, `#/missions/all`, ...). */
export function TablePage<T extends { id: string }>({ title, ...table }: DataTableProps<T> & { title: string }) {
  return (
    <section aria-labelledby={`${table.noun}-table-title`} className="page">
      <h1 id={`${table.noun}-table-title`}>{title}</h1>
      <DataTable {...table} />
    </section>
  );
}

function Filters({ query, statuses, noun, onChange }: { query: TableQuery; statuses: readonly string[]; noun: string; onChange(q: TableQuery): void }) {
  const [search, setSearch] = useState(query.search);
  useEffect(() => setSearch(query.search), [query.search]);
  const ranged = rangeAllowed(query.sort);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onChange(withChange(query, { search: search.trim() }));
  };
  return (
    <form className="table-filters" role="search" aria-label={`Filter ${noun}`} onSubmit={submit}>
      <label>
        Search
        <input type="search" value={search} maxLength={200} onChange={(e) => setSearch(e.target.value)} placeholder="3 characters or more" />
      </label>
      <label>
        Status
        <select value={query.status[0] ?? ''} onChange={(e) => onChange(withChange(query, { status: e.target.value ? [e.target.value] : [] }))}>
          <option value="">All</option>
          {statuses.map((s) => (
            <option key={s} value={s}>
              {s.toLowerCase().replaceAll('_', ' ')}
            </option>
          ))}
        </select>
      </label>
      <label>
        {query.sort === 'UPDATED_AT' ? 'Updated' : 'Created'} from
        <input
          type="datetime-local"
          value={query.since}
          disabled={!ranged}
          aria-describedby={ranged ? undefined : `${noun}-range-note`}
          onChange={(e) => onChange(withChange(query, { since: e.target.value }))}
        />
      </label>
      <label>
        to
        <input
          type="datetime-local"
          value={query.until}
          disabled={!ranged}
          aria-describedby={ranged ? undefined : `${noun}-range-note`}
          onChange={(e) => onChange(withChange(query, { until: e.target.value }))}
        />
      </label>
      {ranged ? null : (
        <p className="range-note" id={`${noun}-range-note`}>
          A time range goes with the Created or Updated sort.
        </p>
      )}
      <button type="submit">Search</button>
    </form>
  );
}

interface BodyProps<T extends { id: string }> {
  page: LivePage<T>;
  query: TableQuery;
  columns: readonly Column<T>[];
  noun: string;
  rowAttr: string;
  onChange(q: TableQuery): void;
}

function Body<T extends { id: string }>({ page, query, columns, noun, rowAttr, onChange }: BodyProps<T>) {
  const state = useStore(page.store);
  useEffect(() => {
    if (state.loaded) performance.mark(`${noun}-table-shown`);
  }, [state.loaded, state.rows, noun]);
  if (state.error) {
    return (
      <p className="error" role="alert">
        Could not read the {noun}: {state.error}
      </p>
    );
  }
  if (!state.loaded) return <p>Loading {noun}…</p>;
  const first = query.at.length * query.size;
  return (
    <>
      <div className="table-status">
        <span className="lede" data-testid={`${noun}-count`}>
          {state.total === 0
            ? `No ${noun} match`
            : `${formatCount(first + 1)}–${formatCount(first + state.rows.length)} of ${formatCount(state.total)} ${noun}`}
        </span>
        {state.leaving.size ? (
          <button type="button" className="new-since" data-testid="leaving" onClick={() => void page.reload()}>
            {state.leaving.size} no longer match{state.leaving.size === 1 ? 'es' : ''} the filter — refresh
          </button>
        ) : null}
        {state.unseen ? (
          <button type="button" className="new-since" data-testid="new-since" onClick={() => void page.reload()}>
            {state.unseen} new or changed since you looked — show
          </button>
        ) : null}
      </div>
      <div className="table-scroll">
        <table className="roots">
          <thead>
            <tr>
              {columns.map((c) => (
                <th key={c.label} scope="col" aria-sort={c.sort && c.sort === query.sort ? (query.dir === 'ASC' ? 'ascending' : 'descending') : undefined}>
                  {c.sort ? (
                    <button type="button" className="sort" onClick={() => onChange(sortedBy(query, c.sort as SortField))}>
                      {c.label}
                      <span aria-hidden="true">{c.sort === query.sort ? (query.dir === 'ASC' ? ' ▲' : ' ▼') : ''}</span>
                    </button>
                  ) : (
                    c.label
                  )}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {state.rows.map((row) => (
              <tr
                key={row.id}
                className={state.leaving.has(row.id) ? 'row-leaving' : undefined}
                data-leaving={state.leaving.has(row.id) || undefined}
                {...{ [`data-${rowAttr}`]: row.id }}
              >
                {columns.map((c, i) => (
                  <td key={c.label}>
                    {c.cell(row)}
                    {i === 0 && state.leaving.has(row.id) ? <span className="leaving-note"> no longer matches the filter</span> : null}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <nav className="pager" aria-label={`Pages of ${noun}`}>
        <button type="button" disabled={query.at.length === 0} onClick={() => onChange({ ...query, at: query.at.slice(0, -1) })}>
          Previous page
        </button>
        <span data-testid="page-number">Page {query.at.length + 1}</span>
        <button
          type="button"
          disabled={!state.hasNext || !state.endCursor}
          onClick={() => onChange({ ...query, at: [...query.at, state.endCursor as string] })}
        >
          Next page
        </button>
      </nav>
    </>
  );
}
