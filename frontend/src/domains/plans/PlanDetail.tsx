/** One plan, live: header and progress, the step timeline, the state machines, and the event history. */
import { progressTone } from '../../core/outcome';
import { formatDuration, formatTime } from '../../core/format';
import { useStore } from '../../core/hooks';
import { useRootLive } from '../../core/liveHooks';
import { useStateMachines } from '../../core/machines';
import type { RootLive } from '../../core/rootLive';
import type { Params } from '../../core/router';
import { href } from '../../core/router';
import { EventHistory } from '../../ui/EventHistory';
import { Loading, NotFound } from '../../ui/NotFound';
import { ProgressBar } from '../../ui/ProgressBar';
import { StateDiagram } from '../../ui/StateDiagram';
import { StatusBadge } from '../../ui/StatusBadge';
import type { PlanDetail } from './api';
import { planSource } from './live';
import { StepTimeline } from './StepTimeline';
import { describeCondition, describeEvent, firedBranches } from './timeline';

export function PlanDetailView({ params }: { params: Params }) {
  const id = params.id ?? '';
  const detail = useRootLive(planSource(id));
  return detail ? <PlanPage live={detail} /> : null;
}

function PlanPage({ live }: { live: RootLive<PlanDetail> }) {
  const view = useStore(live.store);
  const { root: plan } = view;
  if (view.missing) return <NotFound what="Plan" back="/" backLabel="Back to all plans" />;
  if (!plan) return <Loading what="plan" error={view.error} />;
  const fired = firedBranches(view.events, plan.steps);
  return (
    <article className="page plan-detail" aria-labelledby="plan-title" data-plan-id={plan.id} data-status={plan.status.toLowerCase()}>
      <p className="crumbs">
        <a href={href('/')}>← All plans</a>
      </p>
      <header className="plan-head">
        <h1 id="plan-title">{plan.title || plan.researchQuestion}</h1>
        {plan.title && plan.title !== plan.researchQuestion ? <p className="question">{plan.researchQuestion}</p> : null}
        <div className="status-line">
          <StatusBadge status={plan.status} />
          <span className="meta">
            created {formatTime(plan.createdAt)}
            {plan.sessionId ? ` · session ${plan.sessionId}` : ''}
            {plan.stallThresholdSeconds ? ` · stalls after ${formatDuration(plan.stallThresholdSeconds * 1000)}` : ''}
          </span>
        </div>
        <ProgressBar percent={plan.progressPercent} label="Plan progress" tone={progressTone(plan.status)} />
        {plan.status === 'STALLED' ? (
          <p className="banner banner-stalled" role="alert">
            This plan is stalled: a step has been in progress longer than its threshold. An agent resumes it with{' '}
            <code>startNextStep</code>.
          </p>
        ) : null}
        {plan.failureReason ? <p className="banner banner-failed">Failed: {plan.failureReason}</p> : null}
      </header>

      <div className="detail-grid">
        <section aria-labelledby="steps-title" className="detail-steps">
          <h2 id="steps-title">Steps</h2>
          <StepTimeline steps={plan.steps} fired={fired} />
          {plan.branchingConditions.length ? (
            <>
              <h3>Branching conditions</h3>
              <ul className="conditions">
                {plan.branchingConditions.map((c) => (
                  <li key={c.id}>{describeCondition(c, plan.steps)}</li>
                ))}
              </ul>
            </>
          ) : null}
        </section>
        <section aria-labelledby="machines-title" className="detail-machines">
          <h2 id="machines-title">State machines</h2>
          <PlanMachines plan={plan} />
        </section>
      </div>

      <section aria-labelledby="history-title">
        <h2 id="history-title">Event history</h2>
        {view.error ? <p className="error" role="alert">{view.error}</p> : null}
        <EventHistory events={view.events} loaded={view.historyLoaded} describe={describeEvent} />
      </section>
    </article>
  );
}

function PlanMachines({ plan }: { plan: PlanDetail }) {
  const { machines, error } = useStateMachines();
  if (error) return <p className="error">Could not load the state machines: {error}</p>;
  if (!machines) return <p>Loading…</p>;
  const planMachine = machines.find((m) => m.entity === 'plan');
  const stepMachine = machines.find((m) => m.entity === 'step');
  const stepStates: Record<string, number> = {};
  for (const step of plan.steps) {
    const state = step.status.toLowerCase();
    stepStates[state] = (stepStates[state] ?? 0) + 1;
  }
  return (
    <div className="diagram-stack">
      {planMachine ? (
        <StateDiagram machine={planMachine} current={{ [plan.status.toLowerCase()]: 1 }} title="Plan" />
      ) : null}
      {stepMachine ? <StateDiagram machine={stepMachine} current={stepStates} title="Steps" /> : null}
    </div>
  );
}
