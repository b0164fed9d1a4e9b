/** The decision terms the Reviews page shows: order, countdown, assignee and subject in words. */
import { formatDuration } from '../../core/format';
import type { DecisionFieldsFragment } from '../../core/graphql.generated';
import { words } from '../../core/userErrors';

export type Decision = DecisionFieldsFragment;

/** The event kinds that change what the decision inbox holds or shows. */
export const DECISION_EVENT_KINDS = [
  'review_requested',
  'decision_made',
  'decision_deadline_applied',
  'decision_escalated',
  'decision_withdrawn',
  'decision_terms_changed',
];

function at(iso: string | null | undefined): number | null {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : t;
}

/** Those with a deadline first, the nearest first; then the rest, the longest waiting first. */
export function byDeadline(decisions: readonly Decision[]): Decision[] {
  return [...decisions].sort((a, b) => {
    const da = at(a.deadlineAt);
    const db = at(b.deadlineAt);
    if (da !== null && db !== null && da !== db) return da - db;
    if (da !== null && db === null) return -1;
    if (da === null && db !== null) return 1;
    return (at(a.createdAt) ?? 0) - (at(b.createdAt) ?? 0);
  });
}

/** "in 4m 10s", or "overdue by 3s" once the deadline has passed (the timer applies the default then). */
export function countdown(deadlineAt: string | null | undefined, now: number): string | null {
  const deadline = at(deadlineAt);
  if (deadline === null) return null;
  const left = deadline - now;
  return left >= 0 ? `in ${formatDuration(left)}` : `overdue by ${formatDuration(-left)}`;
}

/** user:<name> → "alice"; role:<role> → "any reviewer"; none → "anyone who may". */
export function describeAssignee(assignee: string | null | undefined): string {
  if (!assignee) return 'anyone who may';
  if (assignee.startsWith('user:')) return assignee.slice('user:'.length);
  if (assignee.startsWith('role:')) return `any ${assignee.slice('role:'.length)}`;
  return assignee;
}

const KIND_WORDS: Record<string, string> = {
  PLAN_REVIEW: 'Plan step review',
  WORKFLOW_GATE: 'Workflow approval gate',
  MISSION_APPROVAL: 'Mission approval',
  HOP_PLAN: 'Hop plan approval',
  HOP_IMPLEMENTATION: 'Hop implementation approval',
  ASSET_ACCEPTANCE: 'Asset acceptance',
};

export function describeKind(kind: string): string {
  return KIND_WORDS[kind] ?? words(kind);
}

/** The dashboard page of the decision's root (plan, workflow or mission). */
export function rootPath(decision: Pick<Decision, 'rootType' | 'rootId'>): string | null {
  switch (decision.rootType) {
    case 'plan':
      return `/plans/${decision.rootId}`;
    case 'workflow':
      return `/workflows/${decision.rootId}`;
    case 'mission':
      return `/missions/${decision.rootId}`;
    default:
      return null;
  }
}

/** What ended a decision, for the "settled while you watched" list. */
export function describeEnd(decision: Decision): string {
  switch (decision.status) {
    case 'DEFAULTED':
      return `deadline passed: default ${words(decision.defaultOutcome ?? decision.outcome)} applied`;
    case 'DECIDED':
      return `decided: ${words(decision.outcome)}`;
    case 'WITHDRAWN':
      return `withdrawn${decision.statusReason ? `: ${decision.statusReason}` : ''}`;
    default:
      return words(decision.status);
  }
}

/** What a root is called: a plan's title (or its question), a mission's title, a workflow's name. */
export function rootName(node: object | null): string | null {
  if (!node) return null;
  const { title, researchQuestion, name } = node as { title?: string; researchQuestion?: string; name?: string };
  return title || researchQuestion || name || null;
}
