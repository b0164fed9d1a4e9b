/** A mission's events in words, naming the hop, tool step or asset each one is about. */
import { eventData, type LoggedEvent } from '../../core/events';
import { formatTime } from '../../core/format';
import { words } from '../../core/userErrors';
import type { MissionDetail } from './api';

/** Entity id → how to name it ("hop 1 “Gather”", "tool step “Search”", "asset “Report”"). */
export function entityNames(mission: MissionDetail | null): Map<string, string> {
  const names = new Map<string, string>();
  if (!mission) return names;
  names.set(mission.id, 'mission');
  for (const { node: hop } of mission.hops.edges) {
    names.set(hop.id, `hop ${hop.sequence} “${hop.name}”`);
    for (const { node: step } of hop.toolSteps.edges) names.set(step.id, `tool step “${step.name}”`);
  }
  for (const { node: asset } of mission.assets.edges) names.set(asset.id, `asset “${asset.name}”`);
  return names;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function describeMissionEvent(event: LoggedEvent, names: ReadonlyMap<string, string>): string {
  const data = eventData(event);
  const who = names.get(event.entityId) ?? words(event.entityType);
  const reason = data.reason ? `: ${text(data.reason)}` : '';
  if (event.kind.endsWith('_transitioned')) {
    return `${who} ${words(event.fromState)} → ${words(event.toState)}${reason}`;
  }
  switch (event.kind) {
    case 'mission_proposed':
      return `mission proposed: “${text(data.title ?? '')}”`;
    case 'hop_proposed':
      return `${who} proposed${data.isFinal ? ' as the final hop' : ''}`;
    case 'hop_implementation_proposed': {
      const steps = Array.isArray(data.toolStepIds) ? data.toolStepIds.length : 0;
      return `implementation of ${who} proposed with ${steps} tool step${steps === 1 ? '' : 's'}`;
    }
    case 'tool_selected':
      return `${who}: tool ${text(data.toolName)} selected`;
    case 'tool_step_configured':
      return `${who} configured with ${text(data.parameters)}`;
    case 'asset_proposed':
      return `${who} proposed${data.expiresAt ? `, expires ${formatTime(text(data.expiresAt))}` : ''}`;
    case 'asset_expired':
      return `${who} expired: its TTL ran out`;
    default: {
      // tool_step_completed → "tool step “Search” completed"; hop_plan_rejected → "hop 1 “x” plan rejected".
      const prefix = `${event.entityType}_`;
      const what = event.kind.startsWith(prefix) ? event.kind.slice(prefix.length) : event.kind;
      return `${who} ${words(what)}${reason}`;
    }
  }
}
