/**
 * Every workflow with its status, outcome, progress and step counts, live; blocked and compensating ones
 * stand out. On its own page (`/workflows`) and as the workflows' section of the overview (`/`).
 */
import { progressTone } from '../../core/outcome';
import { formatCount, formatTime } from '../../core/format';
import { rootsInOrder } from '../../core/liveList';
import { href } from '../../core/router';
import { OVERVIEW_FEW } from '../../core/sections';
import { ListPage, OverviewSection } from '../../ui/ListFrames';
import { ProgressBar } from '../../ui/ProgressBar';
import { StatusBadge } from '../../ui/StatusBadge';
import type { WorkflowSummary } from './api';
import { useNewestWorkflows, useWorkflows } from './context';
import type { WorkflowsState } from './live';
import { WorkflowsEmptyState } from './EmptyState';
import { compensationText, stepCountsText, stepProgress, workflowOutcome } from './store';

type Level = 2 | 3;

/** `/workflows`. */
export function WorkflowList() {
  return (
    <ListPage id="workflows" title="Workflows" summary={<Summary state={useWorkflows()} />} table="/workflows/all">
      <WorkflowsBody level={2} state={useWorkflows()} />
    </ListPage>
  );
}

/** The workflows' section of the overview page (`/`). */
export function WorkflowsSection() {
  return (
    <OverviewSection id="workflows" title="Workflows" path="/workflows" summary={<Total state={useNewestWorkflows()} />}>
      <WorkflowsBody level={3} state={useNewestWorkflows()} />
    </OverviewSection>
  );
}

/** How many there are (the server's count): the overview's counts by state say the rest. */
function Total({ state }: { state: WorkflowsState }) {
  if (!state.loaded || !state.total) return null;
  return (
    <span className="lede" aria-live="polite" data-testid="workflows-summary">
      {formatCount(state.total)} workflow{state.total === 1 ? '' : 's'}
    </span>
  );
}

function Summary({ state }: { state: WorkflowsState }) {
  const workflows = rootsInOrder(state);
  if (!state.loaded || !workflows.length) return null;
  const count = (status: WorkflowSummary['status']) => workflows.filter((w) => w.status === status).length;
  const blocked = count('BLOCKED');
  const compensating = count('COMPENSATING');
  return (
    <span className="lede" aria-live="polite" data-testid="workflows-summary">
      {formatCount(state.total)} workflow{state.total === 1 ? '' : 's'}
      {state.total > workflows.length ? ` (the newest ${workflows.length} shown)` : ''}
      {blocked ? ` · ${blocked} waiting for a reviewer` : ''}
      {compensating ? ` · ${compensating} compensating` : ''}
    </span>
  );
}

function WorkflowsBody({ level, state }: { level: Level; state: WorkflowsState }) {
  const workflows = rootsInOrder(state);
  return (
    <>
      {state.error ? (
        <p className="error" role="alert">
          Live workflow updates failed: {state.error}
        </p>
      ) : null}
      {!state.loaded ? <p>Loading workflows…</p> : null}
      {state.loaded && workflows.length === 0 ? (
        level === 2 ? (
          <WorkflowsEmptyState />
        ) : (
          <p className="card empty-small" data-testid="workflows-empty">
            No workflows yet. An agent defines one with <code>createWorkflow</code> or{' '}
            <code>createWorkflowFromYaml</code>; <a href={href('/workflows')}>the Workflows page</a> shows how.
          </p>
        )
      ) : null}
      {workflows.length ? (
        <ul className="plan-list" aria-label="Workflows, newest first">
          {(level === 3 ? workflows.slice(0, OVERVIEW_FEW) : workflows).map((workflow) => (
            <WorkflowCard key={workflow.id} workflow={workflow} level={level} />
          ))}
        </ul>
      ) : null}
    </>
  );
}

function WorkflowCard({ workflow, level }: { workflow: WorkflowSummary; level: Level }) {
  const Heading = level === 2 ? 'h2' : 'h3';
  const status = workflow.status.toLowerCase();
  const undo = compensationText(workflow);
  const outcome = workflowOutcome(workflow);
  return (
    <li
      className={`card plan-card workflow-card workflow-${status}${outcome ? ` outcome-${outcome}` : ''}`}
      data-workflow-id={workflow.id}
      data-status={status}
      data-outcome={outcome ?? undefined}
    >
      <div className="plan-card-main">
        <Heading>
          <a href={href(`/workflows/${workflow.id}`)}>{workflow.name}</a>
        </Heading>
        <p className="meta">
          Created {formatTime(workflow.createdAt)} · failure policy {workflow.failurePolicy.toLowerCase()}
          {workflow.timeout ? ` · timeout ${workflow.timeout}` : ''}
        </p>
        {workflow.failureReason ? <p className="meta failure-line">{workflow.failureReason}</p> : null}
      </div>
      <div className="plan-card-status">
        <div className="status-line">
          <StatusBadge status={workflow.status} tone={outcome} />
          {workflow.outcome ? <StatusBadge status={workflow.outcome} /> : null}
          {workflow.status === 'BLOCKED' ? (
            <a className="blocked-flag" href={href('/reviews')}>
              Waiting for a reviewer
            </a>
          ) : null}
        </div>
        <ProgressBar
          percent={stepProgress(workflow.stepCounts).percent}
          label={`Progress of ${workflow.name}`}
          tone={progressTone(workflow.status, outcome)}
        />
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
