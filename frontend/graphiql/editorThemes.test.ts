import type { editor } from 'monaco-graphql/esm/monaco-editor.js';
import { describe, expect, it } from 'vitest';

import { defineEditorThemes, EDITOR_THEME, PANEL, TEXT } from './editorThemes';

// WCAG 2's contrast ratio of two opaque #rrggbb colours.
function luminance(hex: string): number {
  const channels = [1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16) / 255);
  const [r, g, b] = channels.map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)) as [
    number,
    number,
    number,
  ];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

function defined(): Map<string, editor.IStandaloneThemeData> {
  const themes = new Map<string, editor.IStandaloneThemeData>();
  defineEditorThemes({ defineTheme: (name, data) => themes.set(name, data) });
  return themes;
}

describe('GraphiQL editor themes', () => {
  it('measures contrast as WCAG does', () => {
    expect(contrast('#000000', '#ffffff')).toBeCloseTo(21);
    expect(contrast('#858585', '#212a3b')).toBeCloseTo(3.9, 1); // Monaco's dark line numbers on GraphiQL's panel
  });

  it.each(['light', 'dark'] as const)('gives every text colour it sets at least 5:1 on the %s panel', (theme) => {
    for (const [role, colour] of Object.entries(TEXT[theme])) {
      expect(contrast(colour, PANEL[theme]), `${theme} ${role}`).toBeGreaterThanOrEqual(5);
    }
  });

  it.each(['light', 'dark'] as const)('defines the %s theme with those colours over a transparent editor', (theme) => {
    const data = defined().get(EDITOR_THEME[theme]);
    expect(data?.base).toBe(theme === 'dark' ? 'vs-dark' : 'vs');
    expect(data?.inherit).toBe(true);
    expect(data?.colors['editor.background']).toBe('#00000000');
    expect(data?.colors['editorLineNumber.foreground']).toBe(TEXT[theme].lineNumber);
    expect(data?.colors['editorLineNumber.dimmedForeground']).toBe(TEXT[theme].lineNumber);
    expect(data?.colors['editorLineNumber.activeForeground']).toBe(TEXT[theme].activeLineNumber);
    expect(data?.rules).toContainEqual({ token: 'comment', foreground: TEXT[theme].comment });
  });
});
