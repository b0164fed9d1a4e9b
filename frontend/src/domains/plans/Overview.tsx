/**
 * The overview page (`/`): every domain counted by state and what needs a person now (Glance.tsx); the
 * newest few plans with their status, progress and step counts and the newest stall alerts, live; then
 * the other domains' sections (missions, workflows; see core/sections.tsx), each the newest few, live too.
 * Nothing more is read than is shown.
 */
import { progressTone } from '../../core/outcome';
import { memo } from 'react';

import { formatCount, formatDuration, formatTime } from '../../core/format';
import { rootsInOrder } from '../../core/liveList';
import { href } from '../../core/router';
import { OVERVIEW_FEW, OverviewSections } from '../../core/sections';
import { OverviewSection } from '../../ui/ListFrames';
import { ProgressBar } from '../../ui/ProgressBar';
import { StatusBadge } from '../../ui/StatusBadge';
import type { PlanSummary, StallAlert } from './api';
import { usePlans } from './context';
import { EmptyState } from './EmptyState';
import { Glance } from './Glance';

export function Overview() {
  return (
    <section aria-labelledby="overview-title" className="page">
      <h1 id="overview-title">Overview</h1>
      <Glance />
      <PlansSection />
      <OverviewSections />
    </section>
  );
}

function PlansSection() {
  const state = usePlans();
  const plans = rootsInOrder(state);
  return (
    <OverviewSection id="plans" title="Research plans" summary={<Summary total={state.total} loaded={state.loaded} />} table="/plans">
      {state.error ? (
        <p className="error" role="alert">
          Live updates failed: {state.error}
        </p>
      ) : null}
      {state.loaded && plans.length === 0 ? <EmptyState /> : null}
      {plans.length || state.alerts.length ? <StallAlerts alerts={state.alerts} /> : null}
      {!state.loaded ? <p>Loading plans…</p> : plans.length ? <PlanList plans={plans.slice(0, OVERVIEW_FEW)} /> : null}
    </OverviewSection>
  );
}

/** How many there are (the server's count): the counts by state above say the rest. */
function Summary({ total, loaded }: { total: number; loaded: boolean }) {
  if (!loaded || !total) return null;
  return (
    <span className="lede" aria-live="polite" data-testid="plans-summary">
      {formatCount(total)} plan{total === 1 ? '' : 's'}
    </span>
  );
}

function PlanList({ plans }: { plans: PlanSummary[] }) {
  return (
    <ul className="plan-list" aria-label={`The newest ${plans.length} plans`}>
      {plans.map((plan) => (
        <PlanCard key={plan.id} plan={plan} />
      ))}
    </ul>
  );
}

/** Re-rendered only when its plan changes (a live list re-reads one plan at a time). */
const PlanCard = memo(function PlanCard({ plan }: { plan: PlanSummary }) {
  const c = plan.stepCounts;
  const total = c.pending + c.inProgress + c.awaitingInput + c.completed + c.skipped + c.failed;
  const done = c.completed + c.skipped + c.failed;
  const stalled = plan.status === 'STALLED';
  return (
    <li className={`card plan-card${stalled ? ' plan-stalled' : ''}`} data-plan-id={plan.id} data-status={plan.status.toLowerCase()}>
      <div className="plan-card-main">
        <h3>
          <a href={href(`/plans/${plan.id}`)}>{plan.title || plan.researchQuestion}</a>
        </h3>
        {plan.title && plan.title !== plan.researchQuestion ? <p className="question">{plan.researchQuestion}</p> : null}
        <p className="meta">Created {formatTime(plan.createdAt)}</p>
      </div>
      <div className="plan-card-status">
        <div className="status-line">
          <StatusBadge status={plan.status} />
          {stalled ? <strong className="stall-flag">A step has run longer than its stall threshold</strong> : null}
        </div>
        <ProgressBar
          percent={plan.progressPercent}
          label={`Progress of ${plan.title || plan.researchQuestion}`}
          tone={progressTone(plan.status)}
        />
        <p className="counts" data-testid="step-counts">
          {done} of {total} steps done
          {c.inProgress ? ` · ${c.inProgress} running` : ''}
          {c.awaitingInput ? ` · ${c.awaitingInput} awaiting review` : ''}
          {c.failed ? ` · ${c.failed} failed` : ''}
          {c.skipped ? ` · ${c.skipped} skipped` : ''}
        </p>
      </div>
    </li>
  );
});

function StallAlerts({ alerts }: { alerts: readonly StallAlert[] }) {
  return (
    <section className="alerts" aria-labelledby="alerts-title">
      <h3 id="alerts-title">Stall alerts</h3>
      <div aria-live="assertive" aria-relevant="additions">
        {alerts.length === 0 ? (
          <p className="hint">No stalls recorded. An alert appears here the moment one is detected.</p>
        ) : (
          <ul className="alert-list">
            {alerts.map((alert) => (
              <li key={alert.seq} className="alert" data-alert-plan={alert.planId}>
                <strong>Stalled:</strong>{' '}
                <a href={href(`/plans/${alert.planId}`)}>{alert.plan?.title || alert.plan?.researchQuestion || alert.planId}</a>
                {' — '}
                {alert.steps.length} step{alert.steps.length === 1 ? '' : 's'} running longer than{' '}
                {formatDuration(alert.thresholdSeconds * 1000)}
                {alert.steps.length
                  ? ` (longest ${formatDuration(Math.max(...alert.steps.map((s) => s.runningSeconds)) * 1000)})`
                  : ''}
                . <span className="meta">Detected {formatTime(alert.detectedAt)}</span>
              </li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}
