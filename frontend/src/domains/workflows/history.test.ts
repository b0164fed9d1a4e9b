import { describe, expect, it } from 'vitest';

import { wfEvent } from '../../test/workflows';
import { describeWorkflowEvent } from './history';

const NAMES = new Map([
  ['id-fetch', 'fetch'],
  ['comp-1', 'create-account'],
]);
const say = (over: Parameters<typeof wfEvent>[0]) => describeWorkflowEvent(wfEvent(over), NAMES);

describe('describeWorkflowEvent', () => {
  it('names the step of a transition and gives its reason', () => {
    expect(say({ fromState: 'running', toState: 'pending', data: { reason: 'retry', category: 'transient' } })).toBe(
      'step “fetch” running → pending (retry)',
    );
    expect(
      say({ kind: 'workflow_transitioned', entityType: 'workflow', fromState: 'compensating', toState: 'completed', data: { reason: 'every compensation completed', outcome: 'rolled_back' } }),
    ).toBe('workflow compensating → completed (every compensation completed), outcome rolled back');
    expect(
      say({ kind: 'workflow_compensation_transitioned', entityType: 'workflow_compensation', entityId: 'comp-1', fromState: 'pending', toState: 'running' }),
    ).toBe('undo of “create-account” pending → running');
  });

  it('tells the story of a failure and its retry', () => {
    expect(
      say({ kind: 'workflow_step_failed', data: { category: 'transient', message: '429', attempt: 1, action: 'retry' } }),
    ).toBe('“fetch” failed (transient, attempt 1): 429 → retry');
    expect(say({ kind: 'workflow_step_retry_scheduled', data: { attempt: 2, delaySeconds: 10 } })).toBe(
      '“fetch” will be retried: attempt 2 in 10s',
    );
    expect(say({ kind: 'workflow_step_timed_out', data: { timeoutSeconds: 90 } })).toBe('“fetch” timed out after 1m 30s');
    expect(say({ kind: 'workflow_step_claimed', data: { agent: 'w', attempt: 2 } })).toBe('“fetch” claimed by w (attempt 2)');
  });

  it('describes gates, decisions and the compensation plan', () => {
    expect(say({ kind: 'workflow_step_approved', data: { reviewer: 'dev', comment: 'Go ahead' } })).toBe(
      '“fetch” approved by dev: Go ahead',
    );
    expect(say({ kind: 'workflow_compensation_planned', entityType: 'workflow', data: { order: ['b', 'a'] } })).toBe(
      'compensation planned: undo “b”, then “a”',
    );
    expect(say({ kind: 'workflow_created', entityType: 'workflow', data: { name: 'onboarding', steps: ['a', 'b'] } })).toBe(
      'created “onboarding” with 2 steps',
    );
  });

  it('falls back to the step name the event carries, then to words', () => {
    const unknown = wfEvent({ kind: 'workflow_escalated', entityId: 'other', data: { stepName: 'pay', message: 'blocked' } });
    expect(describeWorkflowEvent(unknown, NAMES)).toBe('“pay” escalated to a reviewer: blocked');
    expect(say({ kind: 'workflow_something_new' })).toBe('workflow something new');
  });
});
