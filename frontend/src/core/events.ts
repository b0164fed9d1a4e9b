/** The event log as every domain's views read it: one entry type (its operations: operations.graphql). */
import type { EventFieldsFragment } from './graphql.generated';

export type LoggedEvent = EventFieldsFragment;

/** An event's data as an object (the server always sends one; anything else reads as empty). */
export function eventData(event: Pick<LoggedEvent, 'data'>): Readonly<Record<string, unknown>> {
  const { data } = event;
  return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
}

/** The root ids a batch of events changed, each once, in order of first mention. */
export function changedRootIds(events: readonly LoggedEvent[]): string[] {
  return [...new Set(events.map((e) => e.rootId))];
}
