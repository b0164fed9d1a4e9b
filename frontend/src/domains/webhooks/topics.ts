/** Webhook topics and delivery figures in words. */
import type { WebhookTopic } from '../../core/graphql.generated';

/** Every topic, in the schema's order, with what a person reads. */
export const TOPICS: readonly { value: WebhookTopic; label: string }[] = [
  { value: 'REVIEW_REQUESTED', label: 'Review requested' },
  { value: 'DECISION_MADE', label: 'Decision made' },
  { value: 'DEADLINE_APPLIED', label: 'Deadline applied' },
  { value: 'ESCALATED', label: 'Escalated' },
  { value: 'STALL_DETECTED', label: 'Stall detected' },
  { value: 'PLAN_FINISHED', label: 'Plan finished' },
  { value: 'PLAN_FAILED', label: 'Plan failed' },
  { value: 'WORKFLOW_FINISHED', label: 'Workflow finished' },
  { value: 'WORKFLOW_FAILED', label: 'Workflow failed' },
  { value: 'MISSION_FINISHED', label: 'Mission finished' },
  { value: 'MISSION_FAILED', label: 'Mission failed' },
  { value: 'ASSET_EXPIRED', label: 'Asset expired' },
];

export function topicLabel(topic: string): string {
  return TOPICS.find((t) => t.value === topic)?.label ?? topic;
}

/** The last attempt's answer: "HTTP 200", the error, or "–" before any attempt. */
export function lastAnswer(delivery: { lastStatusCode?: number | null; lastError?: string | null }): string {
  if (delivery.lastStatusCode != null) return `HTTP ${delivery.lastStatusCode}`;
  return delivery.lastError ?? '–';
}

/** A redelivery range from two form fields: the first seq, and the last (empty: just the first). */
export function parseRange(from: string, to: string): { fromSeq: number; toSeq: number | null } | string {
  const first = Number(from.trim());
  if (!from.trim() || !Number.isInteger(first) || first < 1) return 'The first seq must be a whole number, 1 or more.';
  if (!to.trim()) return { fromSeq: first, toSeq: null };
  const last = Number(to.trim());
  if (!Number.isInteger(last) || last < first) return 'The last seq must be a whole number, not below the first.';
  return { fromSeq: first, toSeq: last };
}
