/**
 * The workflows' group of the Reviews page: approval gates and escalations a page at a time, the
 * nearest deadline first (then the longest waiting; escalations, which have no deadline of their own,
 * after every gate), each naming its workflow, with Approve and Reject; read again whenever the live
 * count is.
 */
import { useState } from 'react';

import { formatDuration } from '../../core/format';
import { WorkflowGatesDocument } from '../../core/graphql.generated';
import { useNow } from '../../core/hooks';
import { href } from '../../core/router';
import { words } from '../../core/userErrors';
import { useSelection, type Selection } from '../../ui/BulkDecide';
import { pageOf, ReviewGroup, ReviewMeta, ReviewRow, useReviewPages, type PageRead } from '../../ui/ReviewPages';
import { StatusBadge } from '../../ui/StatusBadge';
import type { GateRequest } from './api';
import { useGateCountRead, useRefreshGates } from './context';
import { GateForm, type GateDecided } from './GateForm';

interface DecidedGate extends GateDecided {
  id: number;
  stepId: string;
  workflowId: string | null;
  label: string;
}

const readPage: PageRead<GateRequest> = (http, first, after) =>
  http.request(WorkflowGatesDocument, { first, after }).then((r) => pageOf(r.workflowStepsAwaitingReview));

const WHAT = 'workflow approvals';

function label(gate: GateRequest): string {
  return `“${gate.name}” of “${gate.workflow?.name ?? 'a workflow'}”`;
}

function toTarget(gate: GateRequest) {
  return { key: gate.id, label: `step ${label(gate)}`, kind: 'WORKFLOW_STEP' as const, id: gate.id };
}

export function WorkflowReviews() {
  const pages = useReviewPages(readPage, useGateCountRead());
  const refreshCount = useRefreshGates();
  const gates = pages.page?.items ?? null;
  const [decided, setDecided] = useState<DecidedGate[]>([]);
  // A gate answered here leaves the page at once; the next read (which no longer has it) takes over,
  // so a step that comes back for review later shows again.
  const [answered, setAnswered] = useState<{
    in: readonly GateRequest[] | null;
    ids: ReadonlySet<string>;
  }>({
    in: null,
    ids: new Set(),
  });
  const now = useNow();
  const waiting = (gates ?? []).filter((g) => !(answered.in === gates && answered.ids.has(g.id)));
  const targets = waiting.map(toTarget);
  const selection = useSelection(targets.map((t) => t.key), pages.scope);
  const refresh = () => {
    refreshCount();
    pages.refresh();
  };
  return (
    <section aria-labelledby="workflow-reviews-title" className="review-section" data-testid="workflow-reviews">
      <h2 id="workflow-reviews-title">Workflow approvals</h2>
      <ReviewGroup
        pages={pages}
        what={WHAT}
        targets={targets}
        toTarget={toTarget}
        selection={selection}
        onBulkDone={refresh}
        empty="No workflow step is waiting for a reviewer. An approval gate appears here as soon as its dependencies are done, and so does a step an agent reported a governance error for."
      >
        {waiting.map((gate) => (
          <GateItem
            key={gate.id}
            gate={gate}
            now={now}
            selection={selection}
            onDecided={(d) => {
              setAnswered((a) => ({
                in: gates,
                ids: new Set([...(a.in === gates ? a.ids : []), gate.id]),
              }));
              setDecided((list) => [
                {
                  ...d,
                  id: (list[0]?.id ?? 0) + 1,
                  stepId: gate.id,
                  workflowId: gate.workflow?.id ?? null,
                  label: label(gate),
                },
                ...list,
              ]);
            }}
          />
        ))}
      </ReviewGroup>
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
                    Open the workflow
                    <span className="sr-only"> of {d.label}</span>
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

interface ItemProps {
  gate: GateRequest;
  now: number;
  selection: Selection;
  onDecided: (d: GateDecided) => void;
}

function GateItem({ gate, now, selection, onDecided }: ItemProps) {
  const escalated = gate.blockedOn === 'GOVERNANCE';
  const left = gate.timeoutAt ? Date.parse(gate.timeoutAt) - now : null;
  const subject = `step ${label(gate)}`;
  return (
    <ReviewRow
      data={{ 'data-gate-step': gate.id }}
      target={{ key: gate.id, label: subject }}
      selection={selection}
      kind="Workflow"
      title={
        <>
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
        </>
      }
      meta={
        <>
          <ReviewMeta decision={gate.openDecision} since={gate.startedAt} now={now} />
          {left !== null ? ` · ${left > 0 ? `times out in ${formatDuration(left)}` : 'past its timeout'}` : ''}
        </>
      }
    >
      {escalated ? (
        <>
          <p className="review-summary">An agent reported a governance error: {gate.lastError ?? '(no message)'}</p>
          <p className="review-note">Approve to hand the step back to the workers; reject to fail it.</p>
        </>
      ) : (
        <p className="review-note">
          The workflow is {words(gate.workflow?.status ?? 'blocked')} until you answer. Approve to let the steps after
          it run; reject to fail the step.
        </p>
      )}
      <GateForm stepId={gate.id} subject={subject} onDecided={onDecided} />
    </ReviewRow>
  );
}
