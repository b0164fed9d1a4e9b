/** Header with navigation and the connection state, then the current view. */
import { useEffect, useRef, type ReactNode } from 'react';

import type { NavItem } from '../core/domain';
import type { ConnectionState } from '../core/live';
import { href } from '../core/router';
import { useTheme } from '../core/theme';

const STATE_TEXT: Record<ConnectionState, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  unauthorized: 'Key refused',
};

interface ShellProps {
  nav: readonly NavItem[];
  path: string;
  state: ConnectionState;
  onForgetKey: (() => void) | undefined;
  children: ReactNode;
}

export function Shell({ nav, path, state, onForgetKey, children }: ShellProps) {
  const main = useRef<HTMLElement>(null);
  const { theme, toggle } = useTheme();
  // After navigating, move focus to the new view so keyboard and screen-reader users land on it.
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    main.current?.focus();
  }, [path]);

  const current = (item: NavItem) =>
    item.path === '/' ? path === '/' : path === item.path || path.startsWith(`${item.path}/`);

  return (
    <>
      <a className="skip-link" href="#main" onClick={(e) => (e.preventDefault(), main.current?.focus())}>
        Skip to content
      </a>
      <header className="topbar">
        <a className="brand" href={href('/')}>
          Flightdeck
        </a>
        <nav aria-label="Dashboard">
          <ul>
            {nav.map((item) => {
              const Badge = item.badge;
              return (
                <li key={item.path}>
                  <a href={href(item.path)} aria-current={current(item) ? 'page' : undefined}>
                    {item.label}
                    {Badge ? <Badge /> : null}
                  </a>
                </li>
              );
            })}
            <li>
              <a href="/graphql">GraphiQL</a>
            </li>
          </ul>
        </nav>
        <div className="topbar-end">
          <button type="button" className="theme-toggle" aria-pressed={theme === 'dark'} onClick={toggle} data-theme-toggle={theme}>
            Dark mode
          </button>
          <span className={`connection connection-${state}`} role="status" data-connection={state}>
            {STATE_TEXT[state]}
          </span>
          {onForgetKey ? (
            <button type="button" className="link-button" onClick={onForgetKey}>
              Forget key
            </button>
          ) : null}
        </div>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
