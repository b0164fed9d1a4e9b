import { describe, expect, it } from 'vitest';

import { byDeadline, countdown, describeAssignee, describeEnd, rootName, rootPath, type Decision } from './terms';

function decision(over: Partial<Decision>): Decision {
  return {
    id: 'd',
    kind: 'PLAN_REVIEW',
    status: 'OPEN',
    subjectType: 'step',
    subjectId: 's',
    rootType: 'plan',
    rootId: 'p',
    assignee: null,
    defaultOutcome: null,
    deadlineAt: null,
    escalateAt: null,
    escalationRole: null,
    escalatedAt: null,
    outcome: null,
    statusReason: null,
    createdAt: '2026-01-01T00:00:00Z',
    closedAt: null,
    ...over,
  } as Decision;
}

describe('decision terms', () => {
  it('sorts by deadline, nearest first, then the undated by waiting time', () => {
    const list = [
      decision({ id: 'old-undated', createdAt: '2026-01-01T00:00:00Z' }),
      decision({ id: 'late', deadlineAt: '2026-01-03T00:00:00Z' }),
      decision({ id: 'new-undated', createdAt: '2026-01-02T00:00:00Z' }),
      decision({ id: 'soon', deadlineAt: '2026-01-02T00:00:00Z' }),
    ];
    expect(byDeadline(list).map((d) => d.id)).toEqual(['soon', 'late', 'old-undated', 'new-undated']);
  });

  it('counts down to the deadline and says when it is overdue', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(countdown('2026-01-01T00:04:10Z', now)).toBe('in 4m 10s');
    expect(countdown('2025-12-31T23:59:57Z', now)).toBe('overdue by 3s');
    expect(countdown(null, now)).toBeNull();
  });

  it('names the assignee and links the root', () => {
    expect(describeAssignee('user:alice')).toBe('alice');
    expect(describeAssignee('role:reviewer')).toBe('any reviewer');
    expect(describeAssignee(null)).toBe('anyone who may');
    expect(rootPath({ rootType: 'workflow', rootId: 'w' })).toBe('/workflows/w');
    expect(rootPath({ rootType: 'tool', rootId: 't' })).toBeNull();
  });

  it('says how a decision ended', () => {
    expect(describeEnd(decision({ status: 'DEFAULTED', defaultOutcome: 'APPROVE', outcome: 'approve' }))).toBe(
      'deadline passed: default approve applied',
    );
    expect(describeEnd(decision({ status: 'DECIDED', outcome: 'reject' }))).toBe('decided: reject');
  });
});

describe('root names', () => {
  it('reads a plan, mission or workflow name', () => {
    expect(rootName({ title: '', researchQuestion: 'Why?' })).toBe('Why?');
    expect(rootName({ title: 'Cold cells' })).toBe('Cold cells');
    expect(rootName({ name: 'nightly' })).toBe('nightly');
    expect(rootName({})).toBeNull();
    expect(rootName(null)).toBeNull();
  });
});
