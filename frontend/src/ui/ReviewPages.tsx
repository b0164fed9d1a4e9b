/**
 * What each group of the Reviews page shares: a page of its queue read from the server by cursor (in
 * the server's order: the nearest deadline first, then the longest waiting), read again whenever the
 * group's live count is re-read, and read whole (page after page) for a decision on all of it; the count
 * line and the pager; one compact row per item with its deadline, whose details and decision buttons
 * open under it.
 *
 * A long queue is a list of one-line rows, so the page stays short whatever waits; a short one (at most
 * OPEN_UP_TO items on the page) shows every item open, as there is room.
 */
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';

import { BulkDecide, SelectBox, type BulkTarget, type Selection } from './BulkDecide';
import { readEveryPage } from './bulkRun';
import { useConnection } from '../core/connection';
import { formatDuration, formatTime } from '../core/format';
import type { GraphQLHttp } from '../core/http';
import { describeFailure, words } from '../core/userErrors';

/** The page sizes offered; the API caps a page at 100. */
export const PAGE_SIZES = [20, 50, 100] as const;
/** The page size a whole group is read with: the largest the API gives. */
const READ_ALL_BY: number = PAGE_SIZES[2];
/** A page with this many items or fewer shows each one open. */
export const OPEN_UP_TO = 3;
/** Whether the rows of the group around open by themselves (few of them on the page). */
const RowsOpen = createContext(false);

export interface ReviewPage<T> {
  items: readonly T[];
  total: number;
  hasNext: boolean;
  endCursor: string | null | undefined;
}

interface Connection<T> {
  totalCount: number;
  pageInfo: { hasNextPage: boolean; endCursor?: string | null };
  edges: readonly { node: T }[];
}

/** A page of a GraphQL connection. */
export function pageOf<T>(connection: Connection<T>): ReviewPage<T> {
  return {
    items: connection.edges.map((e) => e.node),
    total: connection.totalCount,
    hasNext: connection.pageInfo.hasNextPage,
    endCursor: connection.pageInfo.endCursor,
  };
}

/** Reads one page: `first` items after the cursor (null: the first page). */
export type PageRead<T> = (http: GraphQLHttp, first: number, after: string | null) => Promise<ReviewPage<T>>;

export interface Pages<T> {
  page: ReviewPage<T> | null;
  error: string | null;
  /** Which page `page` is: 0 for the first. */
  index: number;
  /** A page other than the one shown was asked for and has not arrived yet. */
  busy: boolean;
  /** The page size asked for; `shownSize`: the one `page` was read with. */
  size: number;
  shownSize: number;
  setSize(size: number): void;
  next(): void;
  previous(): void;
  /** Read the page shown again (after a decision taken here; its events follow anyway). */
  refresh(): void;
  /** Names the page shown (its place and size), for a selection made on it. */
  scope: string;
  /** Reads every item of the group, page after page; `onRead` is told how many so far. */
  readAll(onRead: (count: number) => void): Promise<T[]>;
}

/**
 * The pages of one group. `read` must be the same function on every render (a module-level one);
 * `version` changes when the page may have changed (the group's live count was read again).
 */
export function useReviewPages<T>(read: PageRead<T>, version: unknown): Pages<T> {
  const { http, report } = useConnection();
  const [at, setAt] = useState<readonly string[]>([]);
  const [size, setSize] = useState<number>(PAGE_SIZES[0]);
  const [asked, setAsked] = useState(0);
  const [state, setState] = useState<{
    page: ReviewPage<T> | null;
    error: string | null;
    index: number;
    size: number;
  }>({
    page: null,
    error: null,
    index: 0,
    size,
  });
  const after = at.at(-1) ?? null;
  const depth = at.length;
  useEffect(() => {
    let current = true;
    read(http, size, after).then(
      (page) => {
        if (!current) return;
        // A later page whose items were all decided meanwhile steps back to the one before it.
        if (!page.items.length && depth > 0) setAt((cursors) => cursors.slice(0, -1));
        setState({ page, error: null, index: depth, size });
      },
      (error: unknown) => {
        if (!current) return;
        report(error);
        setState((s) => ({ ...s, error: describeFailure(error) }));
      },
    );
    return () => {
      current = false;
    };
  }, [http, read, report, size, after, depth, version, asked]);
  const page = state.page;
  return {
    page,
    error: state.error,
    index: state.index,
    busy: state.index !== depth || state.size !== size,
    size,
    shownSize: state.size,
    setSize(next: number) {
      setSize(next);
      setAt([]);
    },
    next() {
      if (page?.hasNext && page.endCursor && state.index === depth) setAt([...at, page.endCursor]);
    },
    previous() {
      setAt(at.slice(0, state.index > 0 ? state.index - 1 : 0));
    },
    refresh() {
      setAsked((n) => n + 1);
    },
    scope: `${state.index}/${state.size}`,
    readAll(onRead) {
      return readEveryPage((cursor) => read(http, READ_ALL_BY, cursor), onRead);
    },
  };
}

/** "21–40 of 137 plan steps, the nearest deadline first". */
export function PageCount({ pages, what }: { pages: Pages<unknown>; what: string }) {
  const { page } = pages;
  if (!page?.total) return null;
  const first = pages.index * pages.shownSize;
  return (
    <p className="meta group-count" data-testid="group-count" aria-busy={pages.busy}>
      {first + 1}–{first + page.items.length} of {page.total.toLocaleString()} {what}, the nearest deadline first
    </p>
  );
}

export function Pager({ pages, what }: { pages: Pages<unknown>; what: string }) {
  const { page } = pages;
  if (!page || (pages.index === 0 && !page.hasNext && page.total <= PAGE_SIZES[0])) return null;
  const of = <span className="sr-only"> of {what}</span>;
  return (
    <nav className="pager" aria-label={`Pages of ${what}`}>
      <button type="button" disabled={pages.index === 0} onClick={pages.previous}>
        Previous page{of}
      </button>
      <span data-testid="group-page">Page {pages.index + 1}</span>
      <button type="button" disabled={!page.hasNext} onClick={pages.next}>
        Next page{of}
      </button>
      <label className="page-size">
        Per page{of}{' '}
        <select value={pages.size} onChange={(e) => pages.setSize(Number(e.target.value))}>
          {PAGE_SIZES.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </label>
    </nav>
  );
}

export interface OpenDecision {
  deadlineAt?: string | null;
  defaultOutcome?: string | null;
  assignee?: string | null;
}

/** "due in 4m 10s, then approve" / "overdue by 3s" / "no deadline", with the assignee when one is set. */
export function DueNote({ decision, now }: { decision: OpenDecision | null | undefined; now: number }) {
  const deadline = decision?.deadlineAt ? Date.parse(decision.deadlineAt) : null;
  const assignee = decision?.assignee ? ` · for ${decision.assignee.replace(/^(user|role):/, '')}` : '';
  if (deadline === null || Number.isNaN(deadline)) {
    return <span className="due due-none">no deadline{assignee}</span>;
  }
  const left = deadline - now;
  const then = decision?.defaultOutcome ? `, then ${words(decision.defaultOutcome)}` : '';
  return (
    <span className="due" title={formatTime(decision?.deadlineAt)}>
      <strong className="countdown">
        {left >= 0 ? `due in ${formatDuration(left)}` : `overdue by ${formatDuration(-left)}`}
      </strong>
      {then}
      {assignee}
    </span>
  );
}

interface RowProps {
  /** The row's data attributes (what the tests and the bulk bar find it by). */
  data: Record<`data-${string}`, string>;
  /** Its key in the group's selection, and the item in words, unique on the page. */
  target: { key: string; label: string };
  selection: Selection;
  /** What it is, one or two words: "Plan", "Workflow", "Hop plan". */
  kind: string;
  /** The item naming its parent: a link to the plan, workflow or mission, then what waits there. */
  title: ReactNode;
  /** Its deadline and how long it has waited. */
  meta: ReactNode;
  children: ReactNode;
}

/** One item: a line (select, title, deadline, waiting), its details and decision under a disclosure. */
export function ReviewRow({ data, target, selection, kind, title, meta, children }: RowProps) {
  const headingId = `review-${target.key}`;
  const open = useContext(RowsOpen);
  return (
    <li className="card review review-row" aria-labelledby={headingId} {...data}>
      <SelectBox selection={selection} target={target} />
      <h3 id={headingId}>
        <span className="review-kind">{kind}</span> {title}
      </h3>
      <p className="meta review-meta">{meta}</p>
      <details open={open}>
        <summary>
          Review and decide<span className="sr-only"> on {target.label}</span>
        </summary>
        {children}
      </details>
    </li>
  );
}

/** A row's deadline and waiting time. */
export function ReviewMeta({
  decision,
  since,
  now,
}: {
  decision: OpenDecision | null | undefined;
  since: string | null | undefined;
  now: number;
}) {
  return (
    <>
      <DueNote decision={decision} now={now} /> · <Waited since={since} now={now} />
    </>
  );
}

interface GroupProps<T> {
  pages: Pages<T>;
  /** The items in words, plural: "plan steps". */
  what: string;
  /** Shown when nothing waits. */
  empty: ReactNode;
  /** The page's items not yet answered here, for the bulk bar. */
  targets: readonly BulkTarget[];
  /** An item as the bulk bar decides it (for the whole group, read when it is decided). */
  toTarget(item: T): BulkTarget;
  selection: Selection;
  onBulkDone(decided: readonly BulkTarget[]): void;
  /** The rows. */
  children: ReactNode;
}

/** Rows inside it open by themselves when `count` is small (a group not built with ReviewGroup). */
export function RowsOpenUpTo({ count, children }: { count: number; children: ReactNode }) {
  return <RowsOpen.Provider value={count <= OPEN_UP_TO}>{children}</RowsOpen.Provider>;
}

/** A group's body: the count, "select all" and the bulk buttons above the rows, the pager under them. */
export function ReviewGroup<T>(props: GroupProps<T>) {
  const { pages, what, empty, targets, toTarget, selection, onBulkDone, children } = props;
  const { page } = pages;
  const readGroup = (onRead: (count: number) => void) => pages.readAll(onRead).then((items) => items.map(toTarget));
  return (
    <>
      <GroupError error={page === null ? pages.error : null} what={`${what} waiting`} />
      {page === null && !pages.error ? <p>Loading…</p> : null}
      {page !== null && targets.length === 0 ? <p className="card empty-small">{empty}</p> : null}
      <PageCount pages={pages} what={what} />
      <BulkDecide
        what={what}
        targets={targets}
        total={page?.total}
        readGroup={readGroup}
        selection={selection}
        onDone={onBulkDone}
      />
      <ul
        className="inbox"
        aria-label={`${what[0]?.toUpperCase()}${what.slice(1)} waiting, the nearest deadline first`}
      >
        <RowsOpenUpTo count={targets.length}>{children}</RowsOpenUpTo>
      </ul>
      <Pager pages={pages} what={what} />
    </>
  );
}

/** "waiting 10m 3s", as every row shows it. */
export function Waited({ since, now }: { since: string | null | undefined; now: number }) {
  if (!since) return null;
  return (
    <span className="waited" title={formatTime(since)}>
      waiting {formatDuration(now - Date.parse(since))}
    </span>
  );
}

export function GroupError({ error, what }: { error: string | null; what: string }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      Could not load the {what}: {error}
    </p>
  );
}
