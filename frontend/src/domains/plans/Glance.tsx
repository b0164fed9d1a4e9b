/**
 * The top of the overview: every domain counted by state (one cheap query, re-read when the live lists
 * move) and what needs a person now (reviews waiting, stalled plans, failures of the last hour). The
 * colours are the outcome's: failed and cancelled are never green.
 */
import { useContext, useEffect, useState } from 'react';

import { useConnection } from '../../core/connection';
import { OverviewCountsDocument, type OverviewCountsQuery } from '../../core/graphql.generated';
import { href } from '../../core/router';
import { DomainsContext } from '../../core/sections';
import { words } from '../../core/userErrors';
import { useMissions } from '../missions/context';
import { useWorkflows } from '../workflows/context';
import { usePlans } from './context';

/** Any domain's counts: its states are only shown, never compared here. */
interface Counts {
  total: number;
  byStatus: readonly { status: string; count: number }[];
}
const HOUR = 3_600_000;
const NUMBER = new Intl.NumberFormat('en');

/** The counts, read on open and again (at most every half second) after the live lists change. */
function useOverviewCounts(): { counts: OverviewCountsQuery | null; error: string | null } {
  const { http } = useConnection();
  const plans = usePlans();
  const missions = useMissions();
  const workflows = useWorkflows();
  const [counts, setCounts] = useState<OverviewCountsQuery | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    const timer = setTimeout(() => {
      const since = new Date(Date.now() - HOUR).toISOString();
      http
        .request(OverviewCountsDocument, { since })
        .then((read) => live && (setCounts(read), setError(null)))
        .catch((e: unknown) => live && setError(String(e)));
    }, counts ? 500 : 0);
    return () => {
      live = false;
      clearTimeout(timer);
    };
    // Any change of the three live lists may change a count.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [http, plans, missions, workflows]);
  return { counts, error };
}

function Bar({ title, path, counts }: { title: string; path: string; counts: Counts }) {
  const shown = counts.byStatus.filter((c) => c.count > 0);
  return (
    <div className="glance-domain" data-testid={`glance-${path.slice(1)}`}>
      <h3>
        <a href={href(path)}>{title}</a> <span className="meta">{NUMBER.format(counts.total)}</span>
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
            {NUMBER.format(c.count)}
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
  const { counts, error } = useOverviewCounts();
  const reviews = useReviewsWaiting();
  if (error) return <p className="error" role="alert">Could not read the counts: {error}</p>;
  if (!counts) return <p className="hint">Counting…</p>;
  const plans = counts.researchPlanCounts;
  const stalled = plans.byStatus.find((c) => c.status === 'STALLED')?.count ?? 0;
  const failures =
    (plans.failedSince ?? 0) + (counts.workflowCounts.failedSince ?? 0) + (counts.missionCounts.failedSince ?? 0);
  return (
    <section aria-labelledby="glance-title" className="glance" data-testid="glance">
      <h2 id="glance-title" className="section-title">
        At a glance
      </h2>
      <ul className="needs-person" aria-label="What needs a person now" data-testid="needs-person">
        <li className={reviews ? 'needs' : undefined}>
          <a href={href('/reviews')}>{reviews === null ? '…' : NUMBER.format(reviews)} waiting for review</a>
        </li>
        <li className={stalled ? 'needs' : undefined}>
          <a href={href('/plans?status=STALLED')}>{NUMBER.format(stalled)} stalled plans</a>
        </li>
        <li className={failures ? 'needs' : undefined} data-testid="failed-last-hour">
          {NUMBER.format(failures)} failed in the last hour
        </li>
      </ul>
      <div className="glance-grid">
        <Bar title="Research plans" path="/plans" counts={plans} />
        <Bar title="Missions" path="/missions" counts={counts.missionCounts} />
        <Bar title="Workflows" path="/workflows" counts={counts.workflowCounts} />
      </div>
    </section>
  );
}
