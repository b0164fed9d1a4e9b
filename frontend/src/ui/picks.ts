/**
 * Which review items of one group are ticked: keys of the page shown, and whether the person went on to
 * choose the whole group (every item waiting, on every page). Kept apart from React so the rules are
 * tested on their own.
 */

export interface Picks {
  keys: ReadonlySet<string>;
  wholeGroup: boolean;
  /** The page the picks were made on (its place and size): another page starts from nothing. */
  scope: string;
}

export interface PicksNow {
  selected: ReadonlySet<string>;
  wholeGroup: boolean;
}

export function nothingPicked(scope: string): Picks {
  return { keys: new Set(), wholeGroup: false, scope };
}

/**
 * The picks as they stand with `listed` on the page `scope`: keys no longer listed drop out, and the
 * whole group holds only while every listed item is still ticked.
 */
export function picksNow(picks: Picks, listed: readonly string[], scope: string): PicksNow {
  if (picks.scope !== scope) return { selected: new Set(), wholeGroup: false };
  const selected = new Set(listed.filter((key) => picks.keys.has(key)));
  return { selected, wholeGroup: picks.wholeGroup && listed.length > 0 && selected.size === listed.length };
}

/** One item ticked or unticked; either leaves the whole group, which means "every item". */
export function toggled(picks: Picks, listed: readonly string[], scope: string, key: string, on: boolean): Picks {
  const keys = new Set(picksNow(picks, listed, scope).selected);
  if (on && listed.includes(key)) keys.add(key);
  else keys.delete(key);
  return { keys, wholeGroup: false, scope };
}

/** Every item of the page ticked, or none. */
export function allToggled(listed: readonly string[], scope: string, on: boolean): Picks {
  return { keys: new Set(on ? listed : []), wholeGroup: false, scope };
}

/** Every item waiting in the group, those on other pages too. */
export function wholeGroupPicked(listed: readonly string[], scope: string): Picks {
  return { keys: new Set(listed), wholeGroup: listed.length > 0, scope };
}

/** Whether to offer the whole group: every item of the page is ticked and more wait than it shows. */
export function offersWholeGroup(now: PicksNow, listed: number, total: number | undefined): boolean {
  return !now.wholeGroup && listed > 0 && now.selected.size === listed && total !== undefined && total > listed;
}
