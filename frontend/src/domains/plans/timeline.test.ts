import { describe, expect, it } from 'vitest';

import { event } from '../../test/plans';
import type { Step } from './api';
import { describeCondition, describeEvent, FEEDBACK_SEPARATOR, firedBranches, splitFeedback } from './timeline';

const step = (id: string, order: number): Step => ({
  id,
  order,
  stepType: 'SEARCH',
  title: '',
  instructions: '',
  status: 'PENDING',
  resultSummary: null,
  confidence: null,
  failureReason: null,
  reviewSummary: null,
  reviewQuestions: null,
  startedAt: null,
  completedAt: null,
  updatedAt: '2026-01-01T00:00:00Z',
});

const base = event({ kind: 'branch_fired', entityId: 's1' });

describe('splitFeedback', () => {
  it('separates the original instructions from each piece of user feedback', () => {
    const text = `Find sources.${FEEDBACK_SEPARATOR}Focus on LFP.${FEEDBACK_SEPARATOR}Only since 2020.`;
    expect(splitFeedback(text)).toEqual({ original: 'Find sources.', feedback: ['Focus on LFP.', 'Only since 2020.'] });
    expect(splitFeedback('Plain.')).toEqual({ original: 'Plain.', feedback: [] });
  });
});

describe('branching', () => {
  const steps = [step('s1', 1), step('s2', 2), step('s3', 3)];

  it('describes a fired skip by the step it jumped to', () => {
    const fired = firedBranches(
      [
        { ...base, seq: 7, data: { action: 'skip_to', field: 'confidence', op: 'gte', value: 0.95, targetStepId: 's3' } },
        { ...base, seq: 8, kind: 'step_completed' },
      ],
      steps,
    );
    expect(fired).toEqual([
      { seq: 7, stepId: 's1', action: 'skip_to', description: 'confidence ≥ 0.95 → skipped to step 3' },
    ]);
  });

  it('describes a fired fail, and a condition before it fires', () => {
    const [fired] = firedBranches([{ ...base, data: { action: 'fail', field: 'sources', op: 'lt', value: 1 } }], steps);
    expect(fired?.description).toBe('sources < 1 → failed the plan');
    expect(
      describeCondition(
        { id: 'c', afterStepId: 's1', field: 'confidence', op: 'GTE', value: 0.9, action: 'SKIP_TO', targetStepId: 's3' },
        steps,
      ),
    ).toBe('After step 1: if confidence ≥ 0.9, skip to step 3');
  });
});

describe('describeEvent', () => {
  it('says what each kind of event did', () => {
    expect(describeEvent({ ...base, kind: 'step_transitioned', fromState: 'pending', toState: 'in_progress' })).toBe(
      'step pending → in progress',
    );
    expect(describeEvent({ ...base, kind: 'user_reviewed', data: { action: 'review_requested', summary: 'Which?' } })).toBe(
      'review requested: Which?',
    );
    expect(
      describeEvent({ ...base, kind: 'user_reviewed', data: { action: 'decision_submitted', decision: 'modify', feedback: 'LFP' } }),
    ).toBe('decision: modify (“LFP”)');
    expect(describeEvent({ ...base, kind: 'plan_stalled', data: { stepIds: ['a'], thresholdSeconds: 60 } })).toBe(
      'stalled: 1 step(s) past 60 s',
    );
    expect(describeEvent({ ...base, kind: 'plan_modified', data: { action: 'created' } })).toBe('plan modified: created');
    expect(describeEvent({ ...base, kind: 'step_started' })).toBe('step started');
  });
});
