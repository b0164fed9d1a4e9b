/** What a DAG node says about its step, in words: attempts, timeout, last error, next attempt, undo. */
import { formatDuration, formatTime } from '../../core/format';
import { words } from '../../core/userErrors';
import type { CompensationSummary, WorkflowStep } from './api';

export type Tone = 'bad' | 'warn' | 'info' | 'ok' | 'plain';

export interface Fact {
  /** A stable name for tests and styling: attempt, timeout, error, next, gate, undo. */
  key: string;
  text: string;
  tone: Tone;
  /** The exact time or message behind a short text, for a tooltip. */
  title?: string;
}

/** `attempt 2 of 4` (1 + maxRetries runs at most); gates are decided, not attempted. */
export function attemptText(step: WorkflowStep): string {
  if (step.approval) return 'approval gate';
  if (step.attempt === 0) return 'not claimed yet';
  const most = 1 + step.retryPolicy.maxRetries;
  return step.attempt <= most ? `attempt ${step.attempt} of ${most}` : `attempt ${step.attempt}`;
}

function until(iso: string, now: number): number {
  return Date.parse(iso) - now;
}

function timeoutFact(step: WorkflowStep, now: number): Fact {
  if (step.status === 'RUNNING' && step.timeoutAt) {
    const left = until(step.timeoutAt, now);
    const title = `Times out at ${formatTime(step.timeoutAt)}`;
    return left > 0
      ? { key: 'timeout', text: `times out in ${formatDuration(left)}`, tone: left < 60_000 ? 'warn' : 'plain', title }
      : { key: 'timeout', text: step.timeout ? `past its ${step.timeout} timeout` : 'past its timeout', tone: 'bad', title };
  }
  return { key: 'timeout', text: step.timeout ? `timeout ${step.timeout}` : 'no timeout', tone: 'plain' };
}

function errorFact(step: WorkflowStep): Fact | null {
  if (step.lastErrorCategory) {
    return { key: 'error', text: `last error: ${words(step.lastErrorCategory)}`, tone: 'bad', title: step.lastError ?? undefined };
  }
  if (step.lastError) {
    const text = step.lastError.startsWith('cancelled') ? 'cancelled' : step.lastError;
    return { key: 'error', text, tone: 'bad', title: step.lastError };
  }
  return null;
}

function nextFact(step: WorkflowStep, now: number): Fact | null {
  if (step.blockedOn === 'APPROVAL') return { key: 'gate', text: 'waiting for approval', tone: 'warn' };
  if (step.blockedOn === 'GOVERNANCE') return { key: 'gate', text: 'escalated to a reviewer', tone: 'warn' };
  if (step.status === 'PENDING' && step.nextAttemptAt) {
    const left = until(step.nextAttemptAt, now);
    const title = `Next attempt from ${formatTime(step.nextAttemptAt)}`;
    return { key: 'next', text: left > 0 ? `next attempt in ${formatDuration(left)}` : 'next attempt: now', tone: 'info', title };
  }
  return null;
}

/** A running step's last heartbeat progress, in one short line (the whole JSON in the tooltip). */
export function progressText(progress: unknown): string {
  const compact = typeof progress === 'string' ? progress : JSON.stringify(progress);
  return compact.length > 48 ? `${compact.slice(0, 47)}…` : compact;
}

function progressFact(step: WorkflowStep): Fact | null {
  if (step.status !== 'RUNNING' || step.progress == null) return null;
  return { key: 'progress', text: `progress: ${progressText(step.progress)}`, tone: 'info', title: JSON.stringify(step.progress, null, 2) };
}

const UNDO_TONE: Record<string, Tone> = { PENDING: 'plain', RUNNING: 'info', COMPLETED: 'ok', FAILED: 'bad' };

function undoFact(undo: CompensationSummary | undefined): Fact | null {
  if (!undo) return null;
  return { key: 'undo', text: `undo #${undo.position}: ${words(undo.status)}`, tone: UNDO_TONE[undo.status] ?? 'plain' };
}

/** The lines under a node's name and state, most urgent last so the eye lands on them. */
export function nodeFacts(step: WorkflowStep, undo: CompensationSummary | undefined, now: number): Fact[] {
  return [timeoutFact(step, now), progressFact(step), errorFact(step), nextFact(step, now), undoFact(undo)].filter(
    (f): f is Fact => f !== null,
  );
}

/** The retry policy in one sentence. */
export function describeRetryPolicy(step: WorkflowStep): string {
  if (step.approval) return 'none (a gate is decided by a reviewer)';
  const p = step.retryPolicy;
  if (p.maxRetries === 0) return 'never retried';
  const cap = p.maxDelay ? `, at most ${p.maxDelay}` : '';
  const on = p.retryOn.map(words).join(', ');
  const source = p.isDefault ? ' (the default policy)' : '';
  return `up to ${p.maxRetries} retr${p.maxRetries === 1 ? 'y' : 'ies'}, ${words(p.backoff)} back-off from ${p.initialDelay}${cap}, on ${on}${source}`;
}
