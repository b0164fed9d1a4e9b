/**
 * Where a resumable stream stands: the newest event `seq` delivered so far.
 *
 * The server sends each tenant's events in `seq` order, so anything at or below the cursor has been
 * seen already (a replay after a reconnect, or a duplicate): `accept` refuses it.
 */
export class SeqCursor {
  constructor(private lastSeen = 0) {}

  get last(): number {
    return this.lastSeen;
  }

  /** True exactly once per new seq; moves the cursor forward. */
  accept(seq: number): boolean {
    if (!Number.isInteger(seq) || seq <= this.lastSeen) return false;
    this.lastSeen = seq;
    return true;
  }
}

/** Merge `incoming` into a list sorted by seq, keeping one entry per seq. Returns `list` if nothing is new. */
export function mergeBySeq<T extends { seq: number }>(list: readonly T[], incoming: readonly T[]): readonly T[] {
  const known = new Set(list.map((item) => item.seq));
  const fresh = incoming.filter((item) => {
    if (known.has(item.seq)) return false;
    known.add(item.seq);
    return true;
  });
  if (fresh.length === 0) return list;
  return [...list, ...fresh].sort((a, b) => a.seq - b.seq);
}
