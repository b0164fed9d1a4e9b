import { afterEach, describe, expect, it, vi } from 'vitest';

import { Shared } from './liveHooks';

class Probe {
  started = 0;
  stopped = 0;
  start(): void {
    this.started += 1;
  }
  stop(): void {
    this.stopped += 1;
  }
}

describe('a shared live object', () => {
  afterEach(() => vi.useRealTimers());

  it('reads nothing until a view uses it, starts once for every user, and stops after the last goes', () => {
    vi.useFakeTimers();
    const made: Probe[] = [];
    const shared = new Shared(() => {
      const probe = new Probe();
      made.push(probe);
      return probe;
    }, 1000);
    expect(made).toHaveLength(0);
    const releaseA = shared.acquire();
    const releaseB = shared.acquire();
    expect(made).toHaveLength(1);
    expect(made[0]?.started).toBe(1);
    releaseA();
    releaseA();
    releaseB();
    expect(made[0]?.stopped).toBe(0);
    // A view that takes over within the grace period keeps it running.
    const releaseC = shared.acquire();
    vi.advanceTimersByTime(2000);
    expect(made).toHaveLength(1);
    expect(made[0]?.stopped).toBe(0);
    releaseC();
    vi.advanceTimersByTime(999);
    expect(made[0]?.stopped).toBe(0);
    vi.advanceTimersByTime(1);
    expect(made[0]?.stopped).toBe(1);
    expect(shared.current.get()).toBeNull();
    // Used again: a new one.
    shared.acquire();
    expect(made).toHaveLength(2);
    expect(made[1]?.started).toBe(1);
  });
});
