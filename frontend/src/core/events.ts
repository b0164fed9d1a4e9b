/** The event log as every domain's views read it: one entry type, its history query and its live stream. */

export interface LoggedEvent {
  seq: number;
  kind: string;
  entityType: string;
  entityId: string;
  rootId: string;
  fromState: string | null;
  toState: string | null;
  actor: string;
  data: Record<string, unknown> | null;
  createdAt: string;
}

export const EVENT_FIELDS = 'seq kind entityType entityId rootId fromState toState actor data createdAt';

/** Events of one root (a plan, a workflow, ...), page by page from `after`. */
export const EVENT_HISTORY = `query History($rootId: ID!, $after: Int!, $first: Int!) {
  events(rootId: $rootId, after: $after, first: $first) {
    edges { node { ${EVENT_FIELDS} } } pageInfo { hasNextPage }
  }
}`;

/** Every event after `after` that the filter lets through, replayed from the log, then live. */
export const EVENT_STREAM = `subscription Events($after: Int, $filter: EventFilter) {
  events(after: $after, filter: $filter) { ${EVENT_FIELDS} }
}`;

/** The root ids a batch of events changed, each once, in order of first mention. */
export function changedRootIds(events: readonly LoggedEvent[]): string[] {
  return [...new Set(events.map((e) => e.rootId))];
}
