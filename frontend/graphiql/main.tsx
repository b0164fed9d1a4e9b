// GraphiQL for Flightdeck, bundled by Vite so the page never needs a CDN.
// Monaco's language workers must be registered before any editor mounts; the
// Vite flavour of the setup module turns them into same-origin worker chunks.
import 'graphiql/setup-workers/vite';
import 'graphiql/style.css';
import './page.css';

import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

import { defineEditorThemes, EDITOR_THEME } from './editorThemes';
import { sharedThemeStorage } from './sharedTheme';
import { keepTabsAccessible } from './tabs';

const container = document.getElementById('graphiql');
if (!container) {
  throw new Error('GraphiQL mount point #graphiql is missing');
}

// The server injects the endpoint path; resolve it against the page so both
// the HTTP and the WebSocket URL stay on whatever host served this page.
const httpUrl = new URL(container.dataset.endpoint ?? '/graphql', window.location.href);
const wsUrl = new URL(httpUrl);
wsUrl.protocol = httpUrl.protocol === 'https:' ? 'wss:' : 'ws:';

// Headers typed into GraphiQL's headers editor (e.g. Authorization: Bearer ...)
// are merged into every request by GraphiQL itself, including the ws
// connection_init payload.
const fetcher = createGraphiQLFetcher({
  url: httpUrl.href,
  subscriptionUrl: wsUrl.href,
});

// Monaco applies a theme by name when GraphiQL creates an editor, and takes its plain light theme for a
// name it does not know yet: ours are defined before GraphiQL mounts, in the module GraphiQL loads
// Monaco from itself (the same instance).
const monaco = await import('monaco-graphql/esm/monaco-editor.js');
defineEditorThemes(monaco.editor);

keepTabsAccessible(container);
createRoot(container).render(
  <StrictMode>
    <GraphiQL fetcher={fetcher} editorTheme={EDITOR_THEME} storage={sharedThemeStorage(window.localStorage)} />
  </StrictMode>,
);
