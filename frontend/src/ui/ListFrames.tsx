/**
 * The two frames a domain's list is shown in: its own page (an `h1`) and its section of the overview
 * page (an `h2` that links to that page). The summary sits next to the heading; the list goes below.
 */
import type { ReactNode } from 'react';

import { href } from '../core/router';

interface Props {
  /** Prefix of the heading's id and of the section's `data-testid` (`<id>-overview`). */
  id: string;
  title: string;
  summary: ReactNode;
  children: ReactNode;
  /** The domain's table of every root (filter, sort, paging), linked under the heading. */
  table?: string;
}

function TableLink({ table, title }: { table: string | undefined; title: string }) {
  return table ? (
    <p className="table-link">
      <a href={href(table)}>{title}: all, in a table with filters, search and paging</a>
    </p>
  ) : null;
}

export function ListPage({ id, title, summary, children, table }: Props) {
  return (
    <section aria-labelledby={`${id}-title`} className="page">
      <div className="page-head">
        <h1 id={`${id}-title`}>{title}</h1>
        {summary}
      </div>
      <TableLink table={table} title={title} />
      {children}
    </section>
  );
}

/** `path`: the domain's own page, linked from the heading (none when the overview is the page). */
export function OverviewSection({ id, title, path, summary, children, table }: Props & { path?: string }) {
  return (
    <section aria-labelledby={`${id}-overview-title`} className="overview-section" data-testid={`${id}-overview`}>
      <h2 id={`${id}-overview-title`} className="section-title">
        {path ? <a href={href(path)}>{title}</a> : title}
        {summary}
      </h2>
      <TableLink table={table} title={title} />
      {children}
    </section>
  );
}
