/** Everything about the step selected in the graph; a step waiting for a reviewer can be decided here. */
import type { ReactNode } from 'react';

import { offers } from '../../core/actions';
import { formatTime } from '../../core/format';
import { words } from '../../core/userErrors';
import { StatusBadge } from '../../ui/StatusBadge';
import type { Compensation, WorkflowStep } from './api';
import { GateForm } from './GateForm';
import { attemptText, describeRetryPolicy } from './stepFacts';

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </>
  );
}

export function StepPanel({ step, undo }: { step: WorkflowStep; undo: Compensation | undefined }) {
  const headingId = `step-panel-${step.id}`;
  return (
    <section className="card step-panel" aria-labelledby={headingId} data-panel-step={step.name} aria-live="polite">
      <div className="timeline-head">
        <h3 id={headingId}>Step “{step.name}”</h3>
        <StatusBadge status={step.status} />
        {step.blockedOn ? <span className="meta">{step.blockedOn === 'APPROVAL' ? 'waiting for approval' : 'escalated to a reviewer'}</span> : null}
      </div>
      <dl className="step-facts">
        <Fact term="Attempt">
          {attemptText(step)}
          {step.claimedBy ? ` (last claimed by ${step.claimedBy})` : ''}
        </Fact>
        <Fact term="Depends on">{step.dependsOn.length ? step.dependsOn.join(', ') : 'nothing (a root step)'}</Fact>
        <Fact term="Who may claim it">{step.approval ? 'nobody: a reviewer decides it' : (step.agent ?? 'any worker')}</Fact>
        <Fact term="Timeout">
          {step.timeout ?? 'none'}
          {step.timeoutAt ? ` (times out at ${formatTime(step.timeoutAt)})` : ''}
        </Fact>
        {step.heartbeatTimeout || step.heartbeatAt ? (
          <Fact term="Heartbeat">
            {step.heartbeatTimeout ? `at least every ${step.heartbeatTimeout}` : 'not required'}
            {step.heartbeatAt ? ` (last at ${formatTime(step.heartbeatAt)})` : ''}
          </Fact>
        ) : null}
        {step.progress != null ? (
          <Fact term="Progress">
            <pre className="output">{JSON.stringify(step.progress, null, 2)}</pre>
          </Fact>
        ) : null}
        <Fact term="On failure">{words(step.onFailure)}</Fact>
        <Fact term="Retries">{describeRetryPolicy(step)}</Fact>
        {step.startedAt ? <Fact term="Started">{formatTime(step.startedAt)}</Fact> : null}
        {step.completedAt ? (
          <Fact term="Finished">
            {formatTime(step.completedAt)}
            {step.completionOrder ? ` (completed #${step.completionOrder})` : ''}
          </Fact>
        ) : null}
        {step.nextAttemptAt ? <Fact term="Next attempt">from {formatTime(step.nextAttemptAt)}</Fact> : null}
        {step.lastError ? (
          <Fact term="Last error">
            {step.lastErrorCategory ? <strong>{words(step.lastErrorCategory)}: </strong> : null}
            {step.lastError}
          </Fact>
        ) : null}
        {step.compensation ? (
          <Fact term="Undo">
            {step.compensation.action} (by {step.compensation.agent})
            {undo ? (
              <>
                {' '}
                — #{undo.position}, <StatusBadge status={undo.status} />
              </>
            ) : (
              ' — only if the workflow compensates'
            )}
          </Fact>
        ) : null}
        {step.output != null ? (
          <Fact term="Output">
            <pre className="output">{JSON.stringify(step.output, null, 2)}</pre>
          </Fact>
        ) : null}
      </dl>
      {offers(step.availableActions, 'approveWorkflowStep') || offers(step.availableActions, 'rejectWorkflowStep') ? (
        <GateForm stepId={step.id} subject={`step “${step.name}”`} />
      ) : null}
    </section>
  );
}
