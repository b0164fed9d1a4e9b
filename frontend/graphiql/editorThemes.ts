// Monaco's colours for GraphiQL's editors. GraphiQL's own dark theme keeps Monaco's dark comment green
// (3.6:1) and line-number grey (3.9:1) on its panel, short of WCAG AA's 4.5:1, and comments are all a
// first-time visitor sees: GraphiQL's welcome text. These themes start from Monaco's own, as GraphiQL's
// do, and change what GraphiQL's change for its look (the editor shows GraphiQL's panel through it,
// arguments in violet) and the text that fell short, each colour at least 5:1 on its panel
// (editorThemes.test.ts checks every one).
import type { editor } from 'monaco-graphql/esm/monaco-editor.js';

export const EDITOR_THEME = { light: 'flightdeck-light', dark: 'flightdeck-dark' } as const;

export type EditorTheme = keyof typeof EDITOR_THEME;

/** GraphiQL's panel in each theme (graphiql/style.css: --color-base), the editors' background. */
export const PANEL: Record<EditorTheme, string> = { light: '#ffffff', dark: '#212a3b' };

/** The text colours the themes set, per theme. */
export const TEXT: Record<EditorTheme, Record<'comment' | 'argument' | 'lineNumber' | 'activeLineNumber', string>> = {
  // Monaco's light colours already pass on white (comments 5.1:1, line numbers 5.0:1): kept.
  light: { comment: '#008000', argument: '#6360c9', lineNumber: '#237893', activeLineNumber: '#0b216f' },
  dark: { comment: '#80ae6b', argument: '#9893ff', lineNumber: '#959fb1', activeLineNumber: '#b7c2d7' },
};

function themeData(theme: EditorTheme): editor.IStandaloneThemeData {
  const text = TEXT[theme];
  const panel = PANEL[theme];
  return {
    base: theme === 'dark' ? 'vs-dark' : 'vs',
    inherit: true,
    rules: [
      { token: 'comment', foreground: text.comment },
      { token: 'argument.identifier.gql', foreground: text.argument },
    ],
    colors: {
      // Transparent: GraphiQL's panel shows through, so the editor matches the page around it.
      'editor.background': '#00000000',
      'editorLineNumber.foreground': text.lineNumber,
      'editorLineNumber.activeForeground': text.activeLineNumber,
      // Monaco draws the number past the last line at 40 % of the ordinary one: under 4.5:1 in both themes.
      'editorLineNumber.dimmedForeground': text.lineNumber,
      // Hovers, suggestions and the find box on GraphiQL's panel too, not on Monaco's own grey.
      'editorWidget.background': panel,
      'editorHoverWidget.background': panel,
      'editorSuggestWidget.background': panel,
    },
  };
}

/** Defines both themes in Monaco; GraphiQL names one of them (EDITOR_THEME) for each editor it creates. */
export function defineEditorThemes(monacoEditor: Pick<typeof editor, 'defineTheme'>): void {
  for (const theme of ['light', 'dark'] as const) {
    monacoEditor.defineTheme(EDITOR_THEME[theme], themeData(theme));
  }
}
