/** Every workflow with its status, outcome, progress and step counts, live; blocked and compensating ones stand out. */
import { href } from '../../app/router';
import { formatTime } from '../../core/format';
import { ProgressBar } from '../../ui/ProgressBar';
import { StatusBadge } from '../../ui/StatusBadge';
import type { WorkflowSummary } from './api';
import { useWorkflows } from './context';
import { WorkflowsEmptyState } from './EmptyState';
import { compensationText, stepCountsText, stepProgress, workflowsInOrder } from './store';

export function WorkflowList() {
  const state = useWorkflows();
  const workflows = workflowsInOrder(state);
  const count = (status: string) => workflows.filter((w) => w.status === status).length;
  const blocked = count('BLOCKED');
  const compensating = count('COMPENSATING');
  return (
    <section aria-labelledby="workflows-title" className="page">
      <div className="page-head">
        <h1 id="workflows-title">Workflows</h1>
        {state.loaded && workflows.length ? (
          <p className="lede" aria-live="polite">
            {state.total} workflow{state.total === 1 ? '' : 's'}
            {state.total > workflows.length ? ` (the newest ${workflows.length} shown)` : ''}
            {blocked ? ` · ${blocked} waiting for a reviewer` : ''}
            {compensating ? ` · ${compensating} compensating` : ''}
          </p>
        ) : null}
      </div>
      {state.error ? (
        <p className="error" role="alert">
          Live updates failed: {state.error}
        </p>
      ) : null}
      {!state.loaded ? <p>Loading workflows…</p> : null}
      {state.loaded && workflows.length === 0 ? <WorkflowsEmptyState /> : null}
      {workflows.length ? (
        <ul className="plan-list" aria-label="Workflows, newest first">
          {workflows.map((workflow) => (
            <WorkflowCard key={workflow.id} workflow={workflow} />
          ))}
        </ul>
      ) : null}
    </section>
  );
}

function WorkflowCard({ workflow }: { workflow: WorkflowSummary }) {
  const status = workflow.status.toLowerCase();
  const undo = compensationText(workflow);
  return (
    <li className={`card plan-card workflow-card workflow-${status}`} data-workflow-id={workflow.id} data-status={status}>
      <div className="plan-card-main">
        <h2>
          <a href={href(`/workflows/${workflow.id}`)}>{workflow.name}</a>
        </h2>
        <p className="meta">
          Created {formatTime(workflow.createdAt)} · failure policy {workflow.failurePolicy.toLowerCase()}
          {workflow.timeout ? ` · timeout ${workflow.timeout}` : ''}
        </p>
        {workflow.failureReason ? <p className="meta failure-line">{workflow.failureReason}</p> : null}
      </div>
      <div className="plan-card-status">
        <div className="status-line">
          <StatusBadge status={workflow.status} />
          {workflow.outcome ? <StatusBadge status={workflow.outcome} /> : null}
          {workflow.status === 'BLOCKED' ? (
            <a className="blocked-flag" href={href('/reviews')}>
              Waiting for a reviewer
            </a>
          ) : null}
        </div>
        <ProgressBar percent={stepProgress(workflow.stepCounts).percent} label={`Progress of ${workflow.name}`} />
        <p className="counts" data-testid="step-counts">
          {stepCountsText(workflow)}
        </p>
        {undo ? (
          <p className="counts" data-testid="compensation-counts">
            {undo}
          </p>
        ) : null}
      </div>
    </li>
  );
}
