/**
 * Light or dark: the choice a person made with the toggle (remembered in localStorage), else what the
 * system prefers (prefers-color-scheme, followed as it changes). The result is `data-theme` on <html>,
 * which ui/styles.css keys its palette on.
 */
import { useEffect, useState } from 'react';

export type Theme = 'light' | 'dark';

export const THEME_KEY = 'flightdeck.theme';
const DARK_QUERY = '(prefers-color-scheme: dark)';

/** The remembered choice, or null to follow the system. A store that cannot be read counts as none. */
export function storedTheme(storage: Pick<Storage, 'getItem'> | null): Theme | null {
  try {
    const value = storage?.getItem(THEME_KEY);
    return value === 'light' || value === 'dark' ? value : null;
  } catch {
    return null;
  }
}

export function resolveTheme(stored: Theme | null, systemDark: boolean): Theme {
  return stored ?? (systemDark ? 'dark' : 'light');
}

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

function systemDark(): boolean {
  return window.matchMedia?.(DARK_QUERY).matches ?? false;
}

/** Set data-theme before the first render, so the page never flashes the other palette. */
export function applyInitialTheme(): void {
  document.documentElement.dataset.theme = resolveTheme(storedTheme(storage()), systemDark());
}

/** The theme in force and a toggle that flips it and remembers the choice. */
export function useTheme(): { theme: Theme; toggle(): void } {
  const [stored, setStored] = useState<Theme | null>(() => storedTheme(storage()));
  const [dark, setDark] = useState(systemDark);
  useEffect(() => {
    const query = window.matchMedia?.(DARK_QUERY);
    if (!query) return undefined;
    const onChange = () => setDark(query.matches);
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, []);
  const theme = resolveTheme(stored, dark);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  const toggle = () => {
    const next: Theme = theme === 'dark' ? 'light' : 'dark';
    try {
      storage()?.setItem(THEME_KEY, next);
    } catch {
      // Not remembered (storage refused); the toggle still applies to this page.
    }
    setStored(next);
  };
  return { theme, toggle };
}
