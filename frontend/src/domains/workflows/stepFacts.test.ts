import { describe, expect, it } from 'vitest';

import { step } from '../../test/workflows';
import { attemptText, describeRetryPolicy, nodeFacts } from './stepFacts';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const facts = (...args: Parameters<typeof nodeFacts>) => nodeFacts(...args).map((f) => `${f.key}: ${f.text}`);

describe('attemptText', () => {
  it('counts attempts against 1 + maxRetries, and says when a step was never claimed or is a gate', () => {
    expect(attemptText(step('a'))).toBe('not claimed yet');
    expect(attemptText(step('a', { attempt: 2 }))).toBe('attempt 2 of 4');
    expect(attemptText(step('a', { attempt: 5 }))).toBe('attempt 5');
    expect(attemptText(step('gate', { approval: true }))).toBe('approval gate');
  });
});

describe('nodeFacts', () => {
  it('shows a retry: the error category and when the next attempt may start', () => {
    const retrying = step('fetch', {
      attempt: 1,
      lastError: '429',
      lastErrorCategory: 'TRANSIENT',
      nextAttemptAt: '2026-01-01T00:00:08Z',
      timeout: '5m',
    });
    expect(facts(retrying, undefined, NOW)).toEqual(['timeout: timeout 5m', 'error: last error: transient', 'next: next attempt in 8s']);
    expect(nodeFacts(retrying, undefined, NOW).find((f) => f.key === 'error')?.title).toBe('429');
    expect(facts(retrying, undefined, NOW + 9000)).toContain('next: next attempt: now');
  });

  it('counts a running step down to its timeout, then says it is past it', () => {
    const running = step('slow', { status: 'RUNNING', attempt: 1, timeout: '1m', timeoutAt: '2026-01-01T00:01:00Z' });
    expect(facts(running, undefined, NOW)).toEqual(['timeout: times out in 1m 0s']);
    expect(nodeFacts(running, undefined, NOW + 30_000)[0]?.tone).toBe('warn');
    expect(facts(running, undefined, NOW + 61_000)).toEqual(['timeout: past its 1m timeout']);
    expect(facts(step('x'), undefined, NOW)).toEqual(['timeout: no timeout']);
  });

  it('shows a running step\'s heartbeat progress, cut short, with the whole of it in the tooltip', () => {
    const running = step('long', { status: 'RUNNING', attempt: 1, progress: { done: 0.5, phase: 'copying files' } });
    expect(facts(running, undefined, NOW)).toEqual(['timeout: no timeout', 'progress: progress: {"done":0.5,"phase":"copying files"}']);
    const long = step('long', { status: 'RUNNING', attempt: 1, progress: { log: 'x'.repeat(100) } });
    const fact = nodeFacts(long, undefined, NOW).find((f) => f.key === 'progress');
    expect(fact?.text).toHaveLength('progress: '.length + 48);
    expect(fact?.title).toContain('x'.repeat(100));
    expect(facts(step('done', { status: 'COMPLETED', progress: { done: 1 } }), undefined, NOW)).toEqual(['timeout: no timeout']);
  });

  it('says what a blocked step waits for, and how its undo stands', () => {
    const gate = step('gate', { status: 'RUNNING', approval: true, blockedOn: 'APPROVAL' });
    expect(facts(gate, undefined, NOW)).toContain('gate: waiting for approval');
    const escalated = step('pay', { status: 'RUNNING', blockedOn: 'GOVERNANCE', lastErrorCategory: 'GOVERNANCE' });
    expect(facts(escalated, undefined, NOW)).toContain('gate: escalated to a reviewer');
    const done = step('create', { status: 'COMPLETED', attempt: 1 });
    expect(facts(done, { position: 2, stepName: 'create', status: 'RUNNING' }, NOW)).toContain('undo: undo #2: running');
  });

  it('calls a step the workflow cancelled cancelled, with the reason in the tooltip', () => {
    const cancelled = step('mail', { status: 'FAILED', lastError: 'cancelled: the workflow is compensating' });
    const error = nodeFacts(cancelled, undefined, NOW).find((f) => f.key === 'error');
    expect(error).toMatchObject({ text: 'cancelled', title: 'cancelled: the workflow is compensating' });
  });
});

describe('describeRetryPolicy', () => {
  it('puts the policy into one sentence', () => {
    expect(describeRetryPolicy(step('a'))).toBe(
      'up to 3 retries, exponential back-off from 1s, at most 1m, on transient (the default policy)',
    );
    const once = step('b', {
      retryPolicy: { maxRetries: 1, backoff: 'CONSTANT', initialDelay: '10s', maxDelay: null, retryOn: ['TRANSIENT', 'EXTERNAL'], isDefault: false },
    });
    expect(describeRetryPolicy(once)).toBe('up to 1 retry, constant back-off from 10s, on transient, external');
    expect(describeRetryPolicy(step('gate', { approval: true }))).toMatch(/decided by a reviewer/);
  });
});
