/** Columns every root table shows the same way: its name as a link, status, the times and the duration. */
import { elapsed, formatDuration, formatTime } from '../core/format';
import { href } from '../core/router';
import type { Column } from './DataTable';
import { StatusBadge } from './StatusBadge';

interface Timed {
  id: string;
  status: string;
  createdAt: string;
  updatedAt: string;
}

export function nameColumn<T extends { id: string }>(route: string, name: (row: T) => string): Column<T> {
  return { label: 'Name', cell: (row) => <a href={href(`${route}/${row.id}`)}>{name(row)}</a> };
}

export function statusColumn<T extends Timed>(): Column<T> {
  return { label: 'Status', sort: 'STATUS', cell: (row) => <StatusBadge status={row.status} /> };
}

/** Started, updated and how long it ran (to its end, or to now while it runs). The server's DURATION
 * order puts what still runs first (the longest running first), then what ended, longest first. */
export function timeColumns<T extends Timed>(started: (row: T) => string | null, ended: (row: T) => string | null): Column<T>[] {
  return [
    { label: 'Started', sort: 'CREATED_AT', cell: (row) => formatTime(started(row)) },
    { label: 'Updated', sort: 'UPDATED_AT', cell: (row) => formatTime(row.updatedAt) },
    { label: 'Duration', sort: 'DURATION', cell: (row) => formatDuration(elapsed(started(row), ended(row), Date.now()) ?? Number.NaN) },
  ];
}

/** Flags a row raises (stalled, waiting for a person), or nothing. */
export function flagsColumn<T>(flags: (row: T) => readonly (string | false)[]): Column<T> {
  return { label: 'Flags', cell: (row) => <span className="flags">{flags(row).filter(Boolean).join(' · ')}</span> };
}
