/** Compensation (seed 002 §4): which completed steps are undone, in what order, by whom, and how it ended. */
import { formatTime } from '../../core/format';
import { StatusBadge } from '../../ui/StatusBadge';
import type { WorkflowDetail, WorkflowStep } from './api';
import { compensationText } from './store';

export function CompensationPanel({ workflow, steps }: { workflow: WorkflowDetail; steps: readonly WorkflowStep[] }) {
  const undoable = steps.filter((s) => s.compensation);
  const summary = compensationText(workflow);
  return (
    <section aria-labelledby="compensation-title" className="compensation" data-testid="compensation">
      <h2 id="compensation-title">Compensation</h2>
      {summary ? (
        <p className="lede" data-testid="compensation-summary">
          {summary}
          {workflow.outcome ? ` — outcome: ${workflow.outcome.toLowerCase().replace(/_/g, ' ')}` : ''}
        </p>
      ) : (
        <p className="hint">
          {undoable.length
            ? `Nothing undone. If this workflow compensates, its completed steps among ${undoable
                .map((s) => `“${s.name}”`)
                .join(', ')} are undone one at a time, the last completed first.`
            : 'No step of this workflow has a compensation entry, so a failure has nothing to undo.'}
        </p>
      )}
      {workflow.compensations.length ? (
        <ol className="compensation-list" aria-label="Compensations in the order they run">
          {workflow.compensations.map((c) => (
            <li key={c.id} className={`card compensation-item step-${c.status.toLowerCase()}`} data-undo-step={c.stepName} data-status={c.status.toLowerCase()}>
              <div className="timeline-head">
                <h3>
                  #{c.position} Undo “{c.stepName}”
                </h3>
                <StatusBadge status={c.status} />
              </div>
              <p className="meta">
                {c.action} — by {c.agent}
                {c.startedAt ? ` · started ${formatTime(c.startedAt)}` : ''}
                {c.completedAt ? ` · finished ${formatTime(c.completedAt)}` : ''}
              </p>
              {c.error ? <p className="error">Failed: {c.error}</p> : null}
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}
