import { describe, expect, it } from 'vitest';

import { wfEvent } from '../../test/workflows';
import type { CompensationSummary } from './api';
import {
  compensationProgress,
  compensationText,
  stepCountsText,
  stepOutcome,
  stepProgress,
  touchesGates,
  workflowOutcome,
} from './store';

describe('workflow progress', () => {
  it('measures progress as finished steps of all steps', () => {
    expect(stepProgress({ pending: 1, running: 1, completed: 1, failed: 0, skipped: 1 })).toEqual({
      total: 4,
      done: 2,
      percent: 50,
    });
    expect(stepProgress({ pending: 0, running: 0, completed: 0, failed: 0, skipped: 0 }).percent).toBe(0);
  });

  it('counts compensations undone, running and failed', () => {
    const progress = compensationProgress([
      { position: 1, stepName: 'c', status: 'COMPLETED' },
      { position: 2, stepName: 'b', status: 'FAILED' },
      { position: 3, stepName: 'a', status: 'PENDING' },
    ]);
    expect(progress).toEqual({ total: 3, undone: 1, running: 0, failed: 1 });
  });
});

describe('touchesGates', () => {
  it('re-reads the reviewer queue when a gate opens, is decided, or its step stops running', () => {
    expect(touchesGates(wfEvent({ kind: 'workflow_approval_requested', fromState: null, toState: null }))).toBe(true);
    expect(touchesGates(wfEvent({ kind: 'workflow_step_rejected', fromState: null, toState: null }))).toBe(true);
    expect(touchesGates(wfEvent({ fromState: 'running', toState: 'failed' }))).toBe(true);
    expect(touchesGates(wfEvent({ fromState: 'pending', toState: 'running' }))).toBe(false);
    expect(touchesGates(wfEvent({ kind: 'workflow_step_claimed', fromState: null, toState: null }))).toBe(false);
    expect(
      touchesGates(wfEvent({ kind: 'workflow_transitioned', entityType: 'workflow', fromState: 'running', toState: 'x' })),
    ).toBe(false);
  });
});

describe('words for the overview', () => {
  it('says how many steps are done and what is still going on', () => {
    const counts = { pending: 1, running: 1, completed: 2, failed: 1, skipped: 1 };
    expect(stepCountsText({ stepCounts: counts })).toBe('4 of 6 steps done · 1 running · 1 failed · 1 skipped');
  });

  it('says how far compensation got, and nothing when it never started', () => {
    const compensations: CompensationSummary[] = [
      { position: 1, stepName: 'b', status: 'COMPLETED' },
      { position: 2, stepName: 'a', status: 'PENDING' },
    ];
    expect(compensationText({ status: 'COMPENSATING', compensations })).toBe('Compensating: 1 of 2 undone');
    expect(compensationText({ status: 'EXECUTING', compensations: [] })).toBeNull();
    expect(compensationText({ status: 'COMPENSATING', compensations: [] })).toBe('Compensating: nothing to undo');
    const failed: CompensationSummary[] = [{ ...compensations[0]!, status: 'FAILED' }, compensations[1]!];
    expect(compensationText({ status: 'FAILED', compensations: failed })).toBe('Compensation: 0 of 2 undone · 1 failed');
  });
});

describe('workflow outcome colours', () => {
  const undo = (...statuses: CompensationSummary['status'][]): CompensationSummary[] =>
    statuses.map((status, i) => ({ position: i + 1, stepName: `s${i}`, status }));

  it('tells success, rolled back, partially rolled back and failed apart', () => {
    expect(workflowOutcome({ status: 'COMPLETED', outcome: 'SUCCEEDED', compensations: [] })).toBe('succeeded');
    expect(workflowOutcome({ status: 'COMPLETED', outcome: 'ROLLED_BACK', compensations: undo('COMPLETED') })).toBe('rolled_back');
    expect(workflowOutcome({ status: 'FAILED', outcome: 'PARTIALLY_ROLLED_BACK', compensations: undo('FAILED') })).toBe(
      'partially_rolled_back',
    );
    expect(workflowOutcome({ status: 'FAILED', outcome: 'FAILED', compensations: [] })).toBe('failed');
    expect(workflowOutcome({ status: 'EXECUTING', outcome: null, compensations: [] })).toBeNull();
  });

  it('derives the outcome from the status and the compensations when the server gives none', () => {
    expect(workflowOutcome({ status: 'COMPLETED', outcome: null, compensations: undo('COMPLETED', 'COMPLETED') })).toBe(
      'rolled_back',
    );
    expect(workflowOutcome({ status: 'FAILED', outcome: null, compensations: undo('COMPLETED', 'FAILED', 'PENDING') })).toBe(
      'partially_rolled_back',
    );
    expect(workflowOutcome({ status: 'COMPLETED', outcome: null, compensations: [] })).toBe('succeeded');
    expect(workflowOutcome({ status: 'FAILED', outcome: null, compensations: [] })).toBe('failed');
  });

  it('marks a completed step its compensation undid, or failed to undo', () => {
    expect(stepOutcome('COMPLETED', 'COMPLETED')).toBe('undone');
    expect(stepOutcome('COMPLETED', 'FAILED')).toBe('undo_failed');
    expect(stepOutcome('COMPLETED', 'RUNNING')).toBeNull();
    expect(stepOutcome('COMPLETED', undefined)).toBeNull();
    expect(stepOutcome('FAILED', 'COMPLETED')).toBeNull();
  });
});
