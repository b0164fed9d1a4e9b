/**
 * The top of the overview: every domain counted by state (one cheap query, read again after a burst of
 * events, any domain's) and what needs a person now (reviews waiting, stalled plans, failures of the last
 * hour). The colours are the outcome's: failed and cancelled are never green.
 */
import { useContext } from 'react';

import { formatCount } from '../../core/format';
import { OverviewCountsDocument, type OverviewCountsQuery } from '../../core/graphql.generated';
import { liveReadContext } from '../../core/liveHooks';
import { href } from '../../core/router';
import { DomainsContext } from '../../core/sections';
import { words } from '../../core/userErrors';

/** Any domain's counts: its states are only shown, never compared here. */
interface Counts {
  total: number;
  byStatus: readonly { status: string; count: number }[];
}
const HOUR = 3_600_000;

/**
 * The counts, read on open and again after an event about a plan, mission or workflow itself (its
 * creation or a change of its state; a step's event changes no count), at most once a second: three
 * GROUP BYs over every root, so a busy tenant's overview does not read them for every event.
 */
const counts = liveReadContext<OverviewCountsQuery>({
  read: (http) => http.request(OverviewCountsDocument, { since: new Date(Date.now() - HOUR).toISOString() }),
  touchedBy: (e) => e.entityId === e.rootId,
  gatherMs: 1000,
});

export const GlanceProvider = counts.Provider;

function Bar({ title, path, counts }: { title: string; path: string; counts: Counts }) {
  const shown = counts.byStatus.filter((c) => c.count > 0);
  return (
    <div className="glance-domain" data-testid={`glance-${path.slice(1)}`}>
      <h3>
        <a href={href(path)}>{title}</a> <span className="meta">{formatCount(counts.total)}</span>
      </h3>
      {counts.total ? (
        <div className="glance-bar" aria-hidden="true">
          {shown.map((c) => (
            <span
              key={c.status}
              className={`glance-part badge-${c.status.toLowerCase()}`}
              style={{ flexGrow: c.count }}
            />
          ))}
        </div>
      ) : null}
      <ul className="glance-legend">
        {shown.map((c) => (
          <li key={c.status} data-status={c.status.toLowerCase()}>
            <span className={`badge badge-${c.status.toLowerCase()}`}>{words(c.status)}</span>{' '}
            {formatCount(c.count)}
          </li>
        ))}
        {!shown.length ? <li className="hint">none yet</li> : null}
      </ul>
    </div>
  );
}

/** Hooks of a fixed list of domains, always called in the same order. */
function useReviewsWaiting(): number | null {
  const domains = useContext(DomainsContext);
  let total: number | null = 0;
  for (const d of domains) {
    const waiting = d.reviews?.useWaiting() ?? 0;
    total = total === null || waiting === null ? null : total + waiting;
  }
  return total;
}

export function Glance() {
  const { value, error } = counts.useRead();
  const reviews = useReviewsWaiting();
  if (error && !value) return <p className="error" role="alert">Could not read the counts: {error}</p>;
  if (!value) return <p className="hint">Counting…</p>;
  const plans = value.researchPlanCounts;
  const stalled = plans.byStatus.find((c) => c.status === 'STALLED')?.count ?? 0;
  const failures =
    (plans.failedSince ?? 0) + (value.workflowCounts.failedSince ?? 0) + (value.missionCounts.failedSince ?? 0);
  return (
    <section aria-labelledby="glance-title" className="glance" data-testid="glance">
      <h2 id="glance-title" className="section-title">
        At a glance
      </h2>
      <ul className="needs-person" aria-label="What needs a person now" data-testid="needs-person">
        <li className={reviews ? 'needs' : undefined}>
          <a href={href('/reviews')}>{reviews === null ? '…' : formatCount(reviews)} waiting for review</a>
        </li>
        <li className={stalled ? 'needs' : undefined}>
          <a href={href('/plans?status=STALLED')}>{formatCount(stalled)} stalled plans</a>
        </li>
        <li className={failures ? 'needs' : undefined} data-testid="failed-last-hour">
          {formatCount(failures)} failed in the last hour
        </li>
      </ul>
      <div className="glance-grid">
        <Bar title="Research plans" path="/plans" counts={plans} />
        <Bar title="Missions" path="/missions" counts={value.missionCounts} />
        <Bar title="Workflows" path="/workflows" counts={value.workflowCounts} />
      </div>
    </section>
  );
}
