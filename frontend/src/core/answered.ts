/**
 * A live queue (a review inbox) with what was answered on this page taken out at once. The answer is
 * kept against the read it was given on: the next read of the queue, which no longer has the item,
 * takes over, so an item that comes back for review later shows again.
 */
export interface Answered<T> {
  /** The read of the queue the answers were given on. */
  in: readonly T[] | null;
  ids: ReadonlySet<string>;
}

export function noneAnswered<T>(): Answered<T> {
  return { in: null, ids: new Set() };
}

/** `id` answered on `queue` (answers given on an older read are dropped). */
export function markAnswered<T>(answered: Answered<T>, queue: readonly T[] | null, id: string): Answered<T> {
  return { in: queue, ids: new Set([...(answered.in === queue ? answered.ids : []), id]) };
}

/** The queue without what was answered on this read of it; null until it is read. */
export function stillWaiting<T>(
  queue: readonly T[] | null,
  answered: Answered<T>,
  idOf: (item: T) => string,
): readonly T[] | null {
  if (queue === null || answered.in !== queue) return queue;
  return queue.filter((item) => !answered.ids.has(idOf(item)));
}
