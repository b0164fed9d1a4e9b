import './ui/styles.css';

import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

import { App } from './app/App';
import { sessionKeyStore } from './core/apiKey';
import { applyInitialTheme } from './core/theme';

applyInitialTheme();

const root = document.getElementById('root');
if (!root) throw new Error('the dashboard mount point #root is missing');

createRoot(root).render(
  <StrictMode>
    <App keys={sessionKeyStore(window.sessionStorage)} />
  </StrictMode>,
);
