/** One workflow, live: header and progress, the DAG, the selected step, compensation, machines, history. */
import { progressTone } from '../../core/outcome';
import { useEffect, useState } from 'react';

import { useConnection } from '../../core/connection';
import { WorkflowStepsAfterDocument } from '../../core/graphql.generated';

import { formatDuration, formatTime } from '../../core/format';
import type { WorkflowOutcome } from '../../core/graphql.generated';
import { useNow, useStore } from '../../core/hooks';
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
import type { Compensation, WorkflowDetail, WorkflowStep } from './api';
import { CompensationPanel } from './CompensationPanel';
import { DagView } from './DagView';
import { describeWorkflowEvent } from './history';
import { readAllSteps } from './allSteps';
import { workflowSource } from './live';
import { StepPanel } from './StepPanel';
import { WorkflowControls } from './WorkflowControls';
import { stepCountsText, stepProgress, workflowOutcome } from './store';

export function WorkflowDetailView({ params }: { params: Params }) {
  const id = params.id ?? '';
  const detail = useRootLive(workflowSource(id));
  return detail ? <WorkflowPage live={detail} /> : null;
}

const OUTCOME_TEXT: Record<WorkflowOutcome, string> = {
  SUCCEEDED: 'Succeeded: every step completed or was skipped.',
  ROLLED_BACK: 'Rolled back: every completed step that had a compensation was undone.',
  PARTIALLY_ROLLED_BACK: 'Partially rolled back: a compensation failed, and the ones after it did not run.',
  FAILED: 'Failed.',
};

/**
 * Every step of the snapshot's workflow: its first page at once, then (past 100 steps) the rest read
 * after each snapshot, the latest snapshot's read winning. Until it arrives, the steps beyond the first
 * page are the last read's (their states one snapshot old) rather than missing from the graph.
 */
function useAllSteps(workflow: WorkflowDetail | null): readonly WorkflowStep[] {
  const { http, report } = useConnection();
  const [read, setRead] = useState<{ of: WorkflowDetail | null; steps: readonly WorkflowStep[] }>({ of: null, steps: [] });
  useEffect(() => {
    if (!workflow || !workflow.steps.pageInfo.hasNextPage) return undefined;
    let current = true;
    const first = {
      steps: workflow.steps.edges.map((e) => e.node),
      hasNext: workflow.steps.pageInfo.hasNextPage,
      endCursor: workflow.steps.pageInfo.endCursor,
    };
    readAllSteps(first, workflow.steps.totalCount, async (after) => {
      const { workflow: more } = await http.request(WorkflowStepsAfterDocument, { id: workflow.id, after });
      if (!more) return null;
      return { steps: more.steps.edges.map((e) => e.node), hasNext: more.steps.pageInfo.hasNextPage, endCursor: more.steps.pageInfo.endCursor };
    }).then(
      (steps) => current && setRead({ of: workflow, steps }),
      (error: unknown) => report(error),
    );
    return () => {
      current = false;
    };
  }, [http, report, workflow]);
  if (!workflow) return [];
  const first = workflow.steps.edges.map((e) => e.node);
  if (!workflow.steps.pageInfo.hasNextPage || read.of === workflow) return read.of === workflow ? read.steps : first;
  const shown = new Set(first.map((s) => s.id));
  return [...first, ...read.steps.filter((s) => !shown.has(s.id))];
}

function WorkflowPage({ live }: { live: RootLive<WorkflowDetail> }) {
  const view = useStore(live.store);
  const [selected, setSelected] = useState<string | null>(null);
  const now = useNow();
  const workflow = view.root;
  const steps = useAllSteps(workflow);
  if (view.missing) return <NotFound what="Workflow" back="/workflows" backLabel="Back to all workflows" />;
  if (!workflow) return <Loading what="workflow" error={view.error} />;
  const undoByStep = new Map<string, Compensation>(workflow.compensations.map((c) => [c.stepId, c]));
  const names = new Map<string, string>([
    ...steps.map((s): [string, string] => [s.id, s.name]),
    ...workflow.compensations.map((c): [string, string] => [c.id, c.stepName]),
  ]);
  const chosen = steps.find((s) => s.id === selected);
  const waiting = steps.filter((s) => s.blockedOn);
  const left = workflow.timeoutAt ? Date.parse(workflow.timeoutAt) - now : null;
  const status = workflow.status.toLowerCase();
  const outcome = workflowOutcome(workflow);
  return (
    <article
      className="page workflow-detail"
      aria-labelledby="workflow-title"
      data-workflow-id={workflow.id}
      data-status={status}
      data-outcome={outcome ?? undefined}
    >
      <p className="crumbs">
        <a href={href('/workflows')}>← All workflows</a>
      </p>
      <header className="plan-head">
        <h1 id="workflow-title">{workflow.name}</h1>
        <div className="status-line">
          <StatusBadge status={workflow.status} tone={outcome} />
          {workflow.outcome ? (
            <span data-testid="outcome">
              <StatusBadge status={workflow.outcome} />
            </span>
          ) : null}
          <span className="meta">
            created {formatTime(workflow.createdAt)} · failure policy {workflow.failurePolicy.toLowerCase()}
            {workflow.timeout ? ` · timeout ${workflow.timeout}` : ''}
            {left !== null ? (left > 0 ? ` (times out in ${formatDuration(left)})` : ' (past its timeout)') : ''}
          </span>
        </div>
        <WorkflowControls workflowId={workflow.id} name={workflow.name} available={workflow.availableActions} />
        {workflow.rerunOfId || workflow.reruns.length ? (
          <p className="meta" data-testid="rerun-links">
            {workflow.rerunOfId ? (
              <>
                Runs again <a href={href(`/workflows/${workflow.rerunOfId}`)}>an earlier workflow</a>.{' '}
              </>
            ) : null}
            {workflow.reruns.length ? (
              <>
                Run again as{' '}
                {workflow.reruns.map((r, i) => (
                  <span key={r.id}>
                    {i ? ', ' : ''}
                    <a href={href(`/workflows/${r.id}`)}>a new workflow ({r.status.toLowerCase()})</a>
                  </span>
                ))}
                .
              </>
            ) : null}
          </p>
        ) : null}
        <ProgressBar
          percent={stepProgress(workflow.stepCounts).percent}
          label="Workflow progress"
          tone={progressTone(workflow.status, outcome)}
        />
        <p className="counts" data-testid="step-counts">
          {stepCountsText(workflow)}
        </p>
        {waiting.length ? (
          <p className="banner banner-blocked" role="status">
            Waiting for a reviewer: {waiting.map((s) => `“${s.name}”`).join(', ')}. Answer under{' '}
            <a href={href('/reviews')}>Reviews</a>, or select the step below.
          </p>
        ) : null}
        {workflow.outcome ? (
          <p className={`banner banner-outcome-${workflow.outcome.toLowerCase()}`} data-testid="outcome-banner">
            {OUTCOME_TEXT[workflow.outcome] ?? workflow.outcome}
            {workflow.failureReason ? ` Why: ${workflow.failureReason}.` : ''}
          </p>
        ) : workflow.failureReason ? (
          <p className="banner banner-failed">{workflow.failureReason}</p>
        ) : null}
      </header>

      <section aria-labelledby="dag-title">
        <h2 id="dag-title">Steps</h2>
        {workflow.steps.totalCount > steps.length ? (
          <p className="hint" role="status">
            The graph shows {steps.length} of {workflow.steps.totalCount} steps; the rest are being read.
          </p>
        ) : null}
        <DagView steps={steps} undoByStep={undoByStep} selected={selected} onSelect={setSelected} outcome={outcome} />
        {chosen ? (
          <StepPanel step={chosen} undo={undoByStep.get(chosen.id)} />
        ) : (
          <p className="hint">Select a step in the graph to see its retry policy, error message, output and times.</p>
        )}
      </section>

      {workflow.failurePolicy === 'COMPENSATE' || workflow.compensations.length || steps.some((s) => s.compensation) ? (
        <CompensationPanel workflow={workflow} steps={steps} />
      ) : null}

      <section aria-labelledby="machines-title">
        <h2 id="machines-title">State machines</h2>
        <WorkflowMachines workflow={workflow} steps={steps} />
      </section>

      <section aria-labelledby="history-title">
        <h2 id="history-title">Event history</h2>
        {view.error ? <p className="error" role="alert">{view.error}</p> : null}
        <EventHistory events={view.events} loaded={view.historyLoaded} describe={(e) => describeWorkflowEvent(e, names)} />
      </section>
    </article>
  );
}

function tally(states: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const state of states) counts[state.toLowerCase()] = (counts[state.toLowerCase()] ?? 0) + 1;
  return counts;
}

function WorkflowMachines({ workflow, steps }: { workflow: WorkflowDetail; steps: readonly WorkflowStep[] }) {
  const { machines, error } = useStateMachines();
  if (error) return <p className="error">Could not load the state machines: {error}</p>;
  if (!machines) return <p>Loading…</p>;
  const shown = [
    { entity: 'workflow', title: 'Workflow', current: tally([workflow.status]) },
    { entity: 'workflow_step', title: 'Steps', current: tally(steps.map((s) => s.status)) },
    { entity: 'workflow_compensation', title: 'Compensations', current: tally(workflow.compensations.map((c) => c.status)) },
  ];
  return (
    <div className="diagram-grid">
      {shown.map(({ entity, title, current }) => {
        const machine = machines.find((m) => m.entity === entity);
        return machine ? <StateDiagram key={entity} machine={machine} current={current} title={title} /> : null;
      })}
    </div>
  );
}
