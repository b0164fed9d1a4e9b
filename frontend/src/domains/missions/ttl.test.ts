import { describe, expect, it } from 'vitest';

import { describeTtl, formatCountdown, ttlDeadline } from './ttl';

describe('formatCountdown', () => {
  it('rounds up to whole seconds and shows two units at most', () => {
    expect(
      [0, 1, 999, 1000, 59_001, 60_000, 61_500, 3_599_000, 3_600_000, 3_725_000, 90_000_000].map(formatCountdown),
    ).toEqual(['0s', '1s', '1s', '1s', '1m 00s', '1m 00s', '1m 02s', '59m 59s', '1h 00m', '1h 02m', '1d 01h']);
    expect(formatCountdown(-5000)).toBe('0s');
  });
});

describe('asset TTL', () => {
  const received = 1_000_000;

  it('counts down from when the snapshot arrived, by the server’s seconds left', () => {
    const deadline = ttlDeadline({ expiresInSeconds: 90 }, received);
    expect(deadline).toBe(received + 90_000);
    expect(describeTtl({ status: 'PROPOSED', expiresInSeconds: 90 }, deadline, received + 5_000)).toEqual({
      phase: 'running',
      text: 'Expires in 1m 25s',
      urgent: false,
    });
    expect(describeTtl({ status: 'READY', expiresInSeconds: 90 }, deadline, received + 45_000).urgent).toBe(true);
    // A clock tick from just before the snapshot arrived shows no more than the server's 90 s.
    expect(describeTtl({ status: 'READY', expiresInSeconds: 90 }, deadline, received - 800).text).toBe(
      'Expires in 1m 30s',
    );
  });

  it('waits for the server’s timer once the TTL ran out, and says so when it expired', () => {
    const deadline = ttlDeadline({ expiresInSeconds: 1 }, received);
    expect(describeTtl({ status: 'PENDING', expiresInSeconds: 1 }, deadline, received + 1_000)).toMatchObject({
      phase: 'due',
      text: 'TTL ran out: expiring…',
    });
    expect(describeTtl({ status: 'EXPIRED', expiresInSeconds: 0 }, deadline, received).phase).toBe('expired');
  });

  it('has no countdown without a TTL', () => {
    expect(ttlDeadline({ expiresInSeconds: null }, received)).toBeNull();
    expect(describeTtl({ status: 'READY', expiresInSeconds: null }, null, received).phase).toBe('none');
  });
});
