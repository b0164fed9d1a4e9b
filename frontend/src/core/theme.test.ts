import { describe, expect, it } from 'vitest';

import { resolveTheme, storedTheme, THEME_KEY } from './theme';

describe('theme', () => {
  it('follows the system until a choice is remembered', () => {
    expect(resolveTheme(null, true)).toBe('dark');
    expect(resolveTheme(null, false)).toBe('light');
    expect(resolveTheme('light', true)).toBe('light');
    expect(resolveTheme('dark', false)).toBe('dark');
  });

  it('reads only a valid remembered choice, and survives a storage that throws', () => {
    const store = (value: string | null) => ({ getItem: (key: string) => (key === THEME_KEY ? value : null) });
    expect(storedTheme(store('dark'))).toBe('dark');
    expect(storedTheme(store('purple'))).toBeNull();
    expect(storedTheme(null)).toBeNull();
    expect(
      storedTheme({
        getItem: () => {
          throw new Error('denied');
        },
      }),
    ).toBeNull();
  });
});
