// GraphiQL 5 draws each session tab as an <li role="tab"> holding its title button and, once there are
// two tabs, a close button: a tab with controls inside it, which assistive technology cannot operate
// as one tab (axe: nested-interactive). GraphiQL's markup is its own component, so it is corrected
// after each render instead: the <li> becomes presentation and the title button is the tab (role,
// aria-selected; GraphiQL already gives it aria-controls), with one tab stop for the tablist and arrow
// keys between tabs. A tablist may hold only tabs, so the close button leaves the accessibility tree and
// the tab order; it stays for the mouse, and Delete on a tab closes it (announced by aria-keyshortcuts).
// GraphiQL re-renders the tabs as they open, close, switch and move, so an observer corrects each one.

const TABLIST = '.graphiql-session-header [role="tablist"]';
const TAB_BUTTON = '.graphiql-tab-button';
const CLOSE_BUTTON = '.graphiql-tab-close';
const ACTIVE = 'graphiql-tab-active';
// What GraphiQL changes on a tab that this correction depends on (or undoes).
const WATCHED = ['class', 'role', 'aria-selected', 'tabindex', 'aria-hidden'];

function setAttribute(el: Element, name: string, value: string | null): void {
  // Written only when different: the observer sees its own writes, and an unchanged one must end there.
  if (el.getAttribute(name) === value) return;
  if (value === null) el.removeAttribute(name);
  else el.setAttribute(name, value);
}

function tabsOf(list: Element): HTMLElement[] {
  return [...list.querySelectorAll<HTMLElement>(`:scope > li > ${TAB_BUTTON}`)];
}

/** Puts the tab role on each title button of `list` and takes the close buttons out of the tablist. */
export function correctTabs(list: Element): void {
  const items = [...list.children].filter((item) => item.querySelector(`:scope > ${TAB_BUTTON}`));
  const anyActive = items.some((item) => item.classList.contains(ACTIVE));
  items.forEach((item, index) => {
    const tab = item.querySelector(`:scope > ${TAB_BUTTON}`);
    if (!tab) return;
    const active = item.classList.contains(ACTIVE);
    const close = item.querySelector(`:scope > ${CLOSE_BUTTON}`);
    setAttribute(item, 'role', 'presentation');
    setAttribute(item, 'aria-selected', null);
    setAttribute(tab, 'role', 'tab');
    setAttribute(tab, 'aria-selected', String(active));
    // One tab stop for the whole tablist: the selected tab (the first while none is).
    setAttribute(tab, 'tabindex', active || (!anyActive && index === 0) ? '0' : '-1');
    setAttribute(tab, 'aria-keyshortcuts', close ? 'Delete' : null);
    if (close) {
      setAttribute(close, 'aria-hidden', 'true');
      setAttribute(close, 'tabindex', '-1');
    }
  });
}

function focusSelectedTab(list: Element): void {
  list.querySelector<HTMLElement>(`${TAB_BUTTON}[aria-selected="true"]`)?.focus();
}

/** Arrow keys, Home and End move to a tab and open it; Delete closes the focused tab. */
function onTabKey(event: KeyboardEvent): void {
  if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  const tab = event.target instanceof Element ? event.target.closest<HTMLElement>(`${TAB_BUTTON}[role="tab"]`) : null;
  const list = tab?.closest(TABLIST);
  if (!tab || !list) return;
  const tabs = tabsOf(list);
  const at = tabs.indexOf(tab);
  if (event.key === 'Delete') {
    const close = tab.parentElement?.querySelector<HTMLElement>(`:scope > ${CLOSE_BUTTON}`);
    if (!close) return;
    event.preventDefault();
    close.click();
    // The closed tab's button is gone with it: focus goes to the tab GraphiQL selects instead.
    requestAnimationFrame(() => focusSelectedTab(list));
    return;
  }
  const to = {
    ArrowRight: tabs[(at + 1) % tabs.length],
    ArrowLeft: tabs[(at - 1 + tabs.length) % tabs.length],
    Home: tabs[0],
    End: tabs[tabs.length - 1],
  }[event.key];
  if (!to) return;
  event.preventDefault();
  to.focus();
  if (to !== tab) to.click();
}

/** Keeps GraphiQL's tabs under `root` corrected from now on; returns the function that stops it. */
export function keepTabsAccessible(root: HTMLElement): () => void {
  let list: Element | null = null;
  const onTabs = new MutationObserver(() => {
    if (list) correctTabs(list);
  });
  const onPage = new MutationObserver(() => {
    if (list?.isConnected) return;
    onTabs.disconnect();
    list = root.querySelector(TABLIST);
    if (!list) return;
    correctTabs(list);
    onTabs.observe(list, { childList: true, subtree: true, attributes: true, attributeFilter: WATCHED });
  });
  onPage.observe(root, { childList: true, subtree: true });
  root.addEventListener('keydown', onTabKey);
  return () => {
    onPage.disconnect();
    onTabs.disconnect();
    root.removeEventListener('keydown', onTabKey);
  };
}
