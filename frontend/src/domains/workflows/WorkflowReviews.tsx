/** The workflows' part of the Reviews page: approval gates and escalations, with Approve and Reject; live. */
import { useState } from 'react';

import { formatDuration, formatTime } from '../../core/format';
import { useNow } from '../../core/hooks';
import { href } from '../../core/router';
import { words } from '../../core/userErrors';
import { BulkDecide, SelectBox, useSelection, type Selection } from '../../ui/BulkDecide';
import { StatusBadge } from '../../ui/StatusBadge';
import type { GateRequest } from './api';
import { useGates, useRefreshGates } from './context';
import { GateForm, type GateDecided } from './GateForm';

interface DecidedGate extends GateDecided {
  id: number;
  stepId: string;
  workflowId: string | null;
  label: string;
}

function label(gate: GateRequest): string {
  return `“${gate.name}” of “${gate.workflow?.name ?? 'a workflow'}”`;
}

export function WorkflowReviews() {
  const gates = useGates().value;
  const [decided, setDecided] = useState<DecidedGate[]>([]);
  // A gate answered here leaves the list at once; the next read of the queue (which no longer has it)
  // takes over, so a step that comes back for review later shows again.
  const [answered, setAnswered] = useState<{ in: readonly GateRequest[] | null; ids: ReadonlySet<string> }>({
    in: null,
    ids: new Set(),
  });
  const now = useNow();
  const refreshGates = useRefreshGates();
  // The longest waiting first (a gate waits from when its step started).
  const waiting = (gates ?? [])
    .filter((g) => !(answered.in === gates && answered.ids.has(g.id)))
    .sort((a, b) => waitedSince(a) - waitedSince(b));
  const targets = waiting.map((g) => ({ key: g.id, label: `step ${label(g)}`, kind: 'WORKFLOW_STEP' as const, id: g.id }));
  const selection = useSelection(targets.map((t) => t.key));
  return (
    <section aria-labelledby="workflow-reviews-title" className="review-section" data-testid="workflow-reviews">
      <h2 id="workflow-reviews-title">Workflow approvals</h2>
      {gates === null ? <p>Loading…</p> : null}
      {gates !== null && waiting.length === 0 ? (
        <p className="card empty-small">
          No workflow step is waiting for a reviewer. An approval gate appears here as soon as its dependencies are done,
          and so does a step an agent reported a governance error for.
        </p>
      ) : null}
      <BulkDecide
        what="workflow approvals"
        targets={targets}
        selection={selection}
        onDone={refreshGates}
      />
      <ul className="inbox" aria-label="Workflow steps waiting, the longest waiting first">
        {waiting.map((gate) => (
          <GateItem
            key={gate.id}
            gate={gate}
            now={now}
            selection={selection}
            onDecided={(d) => {
              setAnswered((a) => ({ in: gates, ids: new Set([...(a.in === gates ? a.ids : []), gate.id]) }));
              setDecided((list) => [
                { ...d, id: (list[0]?.id ?? 0) + 1, stepId: gate.id, workflowId: gate.workflow?.id ?? null, label: label(gate) },
                ...list,
              ]);
            }}
          />
        ))}
      </ul>
      {decided.length ? (
        <section aria-labelledby="workflow-decided-title">
          <h3 id="workflow-decided-title">Decided here</h3>
          <ul className="decided" aria-live="polite">
            {decided.map((d) => (
              <li key={d.id} className="card" data-decided-gate={d.stepId}>
                <strong>{d.decision === 'APPROVE' ? 'Approved' : 'Rejected'}</strong> — {d.label}: step now{' '}
                <StatusBadge status={d.stepStatus} />, workflow now <StatusBadge status={d.workflowStatus} />{' '}
                {d.workflowId ? (
                  <a href={href(`/workflows/${d.workflowId}`)}>
                    Open the workflow<span className="sr-only"> of {d.label}</span>
                  </a>
                ) : null}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </section>
  );
}

function waitedSince(gate: GateRequest): number {
  return gate.startedAt ? Date.parse(gate.startedAt) : Number.POSITIVE_INFINITY;
}

interface ItemProps {
  gate: GateRequest;
  now: number;
  selection: Selection;
  onDecided: (d: GateDecided) => void;
}

function GateItem({ gate, now, selection, onDecided }: ItemProps) {
  const headingId = `gate-${gate.id}`;
  const escalated = gate.blockedOn === 'GOVERNANCE';
  const left = gate.timeoutAt ? Date.parse(gate.timeoutAt) - now : null;
  const subject = `step ${label(gate)}`;
  return (
    <li className="card review" data-gate-step={gate.id} aria-labelledby={headingId}>
      <div className="review-head">
        <h3 id={headingId}>
          {gate.workflow ? (
            <a href={href(`/workflows/${gate.workflow.id}`)}>
              {gate.workflow.name}
              <span className="sr-only"> (step “{gate.name}”)</span>
            </a>
          ) : (
            'A workflow'
          )}
          <span className="review-step">
            {' '}
            — step “{gate.name}” ({escalated ? 'governance escalation' : 'approval gate'})
          </span>
        </h3>
        <SelectBox selection={selection} target={{ key: gate.id, label: subject }} />
      </div>
      <p className="meta">
        {gate.startedAt ? <span className="waited">waiting {formatDuration(now - Date.parse(gate.startedAt))} · </span> : null}
        since {formatTime(gate.startedAt)}
        {left !== null ? ` · ${left > 0 ? `times out in ${formatDuration(left)}` : 'past its timeout'}` : ''}
      </p>
      {escalated ? (
        <>
          <p className="review-summary">An agent reported a governance error: {gate.lastError ?? '(no message)'}</p>
          <p className="review-note">Approve to hand the step back to the workers; reject to fail it.</p>
        </>
      ) : (
        <p className="review-note">
          The workflow is {words(gate.workflow?.status ?? 'blocked')} until you answer. Approve to let the steps after it
          run; reject to fail the step.
        </p>
      )}
      <GateForm stepId={gate.id} subject={subject} onDecided={onDecided} />
    </li>
  );
}
