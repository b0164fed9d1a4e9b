/** A root's event log (a plan's, a mission's, a workflow's), oldest first, growing live; one row per seq. */
import type { LoggedEvent } from '../core/events';
import { formatTime } from '../core/format';

interface Props {
  events: readonly LoggedEvent[];
  loaded: boolean;
  /** One line, in words, for the "What happened" column. */
  describe: (event: LoggedEvent) => string;
}

export function EventHistory({ events, loaded, describe }: Props) {
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
