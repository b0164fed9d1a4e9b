import { describe, expect, it } from 'vitest';

import { sessionKeyStore, bearer } from './apiKey';
import { elapsed, formatConfidence, formatDuration } from './format';
import { RequestFailed } from './http';
import { retryDelayMs, wsUrl } from './live';
import { describeFailure, describeUserError, type UserError } from './userErrors';

const refusal = (over: Pick<UserError, 'code' | 'message'> & Partial<UserError>): UserError => ({
  field: [],
  entity: null,
  fromState: null,
  toState: null,
  ...over,
});

describe('describeUserError', () => {
  it('says why a transition was refused and what state the step is in', () => {
    const text = describeUserError(
      refusal({
        code: 'INVALID_TRANSITION',
        message: 'decisions are taken only on a step awaiting input',
        entity: 'step',
        fromState: 'completed',
        toState: 'completed',
      }),
    );
    expect(text).toContain('cannot be done to this step any more');
    expect(text).toContain('It is completed now.');
  });

  it('names the field of a validation failure', () => {
    const text = describeUserError(
      refusal({ code: 'VALIDATION_FAILED', message: 'feedback is required', field: ['feedback'] }),
    );
    expect(text).toBe('The input was not accepted: Check feedback. feedback is required');
  });

  it('explains NOT_FOUND and CONFLICT, and passes unknown codes through', () => {
    expect(describeUserError(refusal({ code: 'NOT_FOUND', message: 'step x' }))).toMatch(/no longer exists/);
    expect(describeUserError(refusal({ code: 'CONFLICT', message: 'raced' }))).toMatch(/same moment/);
    // A server newer than this page may send a code the page does not know yet.
    const unknown = 'SOMETHING_NEW' as UserError['code'];
    expect(describeUserError(refusal({ code: unknown, message: 'as is' }))).toBe('as is');
  });

  it('explains a forbidden request by the role it needs', () => {
    expect(describeFailure(new RequestFailed('forbidden', 'FORBIDDEN'))).toMatch(/reviewer or admin/);
    expect(describeFailure(new Error('offline'))).toBe('offline');
  });
});

describe('format', () => {
  it('formats durations from seconds to days', () => {
    expect([0, 59_000, 61_000, 3_600_000 + 120_000, 50 * 3_600_000].map(formatDuration)).toEqual([
      '0s',
      '59s',
      '1m 1s',
      '1h 2m',
      '2d 2h',
    ]);
    expect(formatDuration(-1)).toBe('–');
  });

  it('measures a closed interval, or an open one up to now', () => {
    expect(elapsed('2026-01-01T00:00:00Z', '2026-01-01T00:01:30Z', 0)).toBe(90_000);
    expect(elapsed('2026-01-01T00:00:00Z', null, Date.parse('2026-01-01T00:00:05Z'))).toBe(5_000);
    expect(elapsed(null, null, 0)).toBeNull();
  });

  it('shows confidence as a percentage', () => {
    expect(formatConfidence(0.955)).toBe('96%');
    expect(formatConfidence(null)).toBe('–');
  });
});

describe('connection helpers', () => {
  it('backs off from half a second to at most eight, with bounded jitter', () => {
    expect([0, 1, 2, 3, 4, 10].map((n) => retryDelayMs(n, () => 0))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
    expect(retryDelayMs(0, () => 0.999)).toBeLessThan(750);
  });

  it('derives the WebSocket URL from the page URL', () => {
    expect(wsUrl('http://127.0.0.1:8000/graphql')).toBe('ws://127.0.0.1:8000/graphql');
    expect(wsUrl('https://deck.example/graphql')).toBe('wss://deck.example/graphql');
  });

  it('keeps the key in the given session storage and builds the bearer header', () => {
    const data = new Map<string, string>();
    const store = sessionKeyStore({
      getItem: (k) => data.get(k) ?? null,
      setItem: (k, v) => void data.set(k, v),
      removeItem: (k) => void data.delete(k),
    });
    expect(store.get()).toBeNull();
    store.set('  fdk_1  ');
    expect(store.get()).toBe('fdk_1');
    expect(bearer(store.get())).toBe('Bearer fdk_1');
    store.clear();
    expect(bearer(store.get())).toBeUndefined();
  });
});
