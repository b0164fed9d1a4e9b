/** A root's event log (a plan's, a mission's), oldest first, growing live; one row per seq. */
import { formatTime } from '../../core/format';
import type { PlanEvent } from './api';
import { describeEvent } from './timeline';

interface Props {
  events: readonly PlanEvent[];
  loaded: boolean;
  /** The "What happened" column; plan events by default. */
  describe?: (event: PlanEvent) => string;
}

export function EventHistory({ events, loaded, describe = describeEvent }: Props) {
  return (
    <>
      <p className="meta" aria-live="polite" data-testid="event-count">
        {loaded ? `${events.length} event${events.length === 1 ? '' : 's'}` : 'Loading the history…'}
      </p>
      <div className="table-scroll">
        <table className="events">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">When</th>
              <th scope="col">Kind</th>
              <th scope="col">What happened</th>
              <th scope="col">By</th>
            </tr>
          </thead>
          <tbody>
            {events.map((event) => (
              <tr key={event.seq} data-seq={event.seq}>
                <td>{event.seq}</td>
                <td className="nowrap">{formatTime(event.createdAt)}</td>
                <td>
                  <code>{event.kind}</code>
                </td>
                <td>{describe(event)}</td>
                <td>{event.actor}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
