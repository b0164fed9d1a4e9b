/** Builders for workflow-domain test data. */
import type { LoggedEvent } from '../core/events';
import type { GateRequest, WorkflowStep, WorkflowSummary } from '../domains/workflows/api';

export function summary(id: string, over: Partial<WorkflowSummary> = {}): WorkflowSummary {
  return {
    id,
    name: `workflow ${id}`,
    status: 'EXECUTING',
    outcome: null,
    failurePolicy: 'ABORT',
    timeout: null,
    timeoutAt: null,
    failureReason: null,
    createdAt: `2026-01-01T00:00:0${id}Z`,
    startedAt: null,
    completedAt: null,
    stepCounts: { pending: 2, running: 0, completed: 0, failed: 0, skipped: 0 },
    compensations: [],
    ...over,
  };
}

export function step(name: string, over: Partial<WorkflowStep> = {}): WorkflowStep {
  return {
    id: `id-${name}`,
    name,
    position: 1,
    status: 'PENDING',
    dependsOn: [],
    agent: null,
    timeout: null,
    onFailure: 'ABORT',
    approval: false,
    blockedOn: null,
    attempt: 0,
    claimedBy: null,
    nextAttemptAt: null,
    timeoutAt: null,
    heartbeatTimeout: null,
    heartbeatAt: null,
    progress: null,
    startedAt: null,
    completedAt: null,
    completionOrder: null,
    lastError: null,
    lastErrorCategory: null,
    output: null,
    retryPolicy: { maxRetries: 3, backoff: 'EXPONENTIAL', initialDelay: '1s', maxDelay: '1m', retryOn: ['TRANSIENT'], isDefault: true },
    compensation: null,
    availableActions: [],
    ...over,
  };
}

export function gate(id: string, workflowId = 'w1'): GateRequest {
  return {
    id,
    name: `gate ${id}`,
    blockedOn: 'APPROVAL',
    lastError: null,
    openDecision: null,
    startedAt: '2026-01-01T00:00:00Z',
    timeoutAt: null,
    workflow: { id: workflowId, name: `workflow ${workflowId}`, status: 'BLOCKED' },
  };
}

export function wfEvent(over: Partial<LoggedEvent> = {}): LoggedEvent {
  return {
    seq: 1,
    kind: 'workflow_step_transitioned',
    entityType: 'workflow_step',
    entityId: 'id-fetch',
    rootType: 'workflow',
    rootId: 'w1',
    fromState: 'pending',
    toState: 'running',
    actor: 'worker-1',
    data: null,
    createdAt: '2026-01-01T00:00:00Z',
    ...over,
  };
}
