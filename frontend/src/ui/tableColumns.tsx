/** Columns every root table shows the same way: its name as a link, status, the times and the duration. */
import { elapsed, formatDuration } from '../core/format';
import { href } from '../core/router';
import type { Column } from './DataTable';
import { StatusBadge } from './StatusBadge';
import { Time } from './Time';

interface Timed {
  id: string;
  status: string;
  createdAt: string;
  updatedAt: string;
}

export function nameColumn<T extends { id: string }>(route: string, name: (row: T) => string): Column<T> {
  return { label: 'Name', cell: (row) => <a href={href(`${route}/${row.id}`)}>{name(row)}</a> };
}

/** `tone`: how the row ended, when that colours it rather than its state (a workflow COMPLETED by rolling
 * back is not a success). */
export function statusColumn<T extends Timed>(tone?: (row: T) => string | null): Column<T> {
  return { label: 'Status', sort: 'STATUS', cell: (row) => <StatusBadge status={row.status} tone={tone?.(row)} /> };
}

/**
 * Created, started (where the domain records a start: a workflow's startWorkflow), ended, updated, and
 * how long it ran: from its start (or its creation, where there is no start) to its end, or to now while
 * it runs. A workflow not started shows no start and no duration, rather than its creation time and a
 * duration that grows. Times read relative ("5 min ago"), the absolute time in the tooltip. The server's
 * DURATION order puts what still runs first (the longest running first), then what ended, longest first.
 */
export function timeColumns<T extends Timed>(
  ended: (row: T) => string | null,
  started?: (row: T) => string | null,
): Column<T>[] {
  const from = (row: T) => (started ? started(row) : row.createdAt);
  return [
    { label: 'Created', sort: 'CREATED_AT', cell: (row) => <Time iso={row.createdAt} /> },
    ...(started ? [{ label: 'Started', cell: (row: T) => (started(row) ? <Time iso={started(row)} /> : <span className="hint">not started</span>) }] : []),
    { label: 'Ended', cell: (row) => <Time iso={ended(row)} /> },
    { label: 'Updated', sort: 'UPDATED_AT', cell: (row) => <Time iso={row.updatedAt} /> },
    {
      label: 'Duration',
      sort: 'DURATION',
      cell: (row) => (from(row) ? formatDuration(elapsed(from(row), ended(row), Date.now()) ?? Number.NaN) : <span className="hint">–</span>),
    },
  ];
}

/** Flags a row raises (stalled, waiting for a person), or nothing. */
export function flagsColumn<T>(flags: (row: T) => readonly (string | false)[]): Column<T> {
  return { label: 'Flags', cell: (row) => <span className="flags">{flags(row).filter(Boolean).join(' · ')}</span> };
}
