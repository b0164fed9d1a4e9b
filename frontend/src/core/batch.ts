/**
 * Collects keys (e.g. the ids events name) and hands them over together a moment later, so a burst of
 * events causes one round of re-reads instead of one per event.
 */
export type Schedule = (run: () => void) => void;

/** 50 ms: long enough to gather one commit's events, short enough to look instant. */
export const soon: Schedule = (run) => void setTimeout(run, 50);

export class Batch<K> {
  private keys = new Set<K>();
  private queued = false;

  constructor(
    private flush: (keys: K[]) => void,
    private schedule: Schedule = soon,
  ) {}

  add(key: K): void {
    this.keys.add(key);
    if (this.queued) return;
    this.queued = true;
    this.schedule(() => {
      this.queued = false;
      const keys = [...this.keys];
      this.keys.clear();
      this.flush(keys);
    });
  }
}
