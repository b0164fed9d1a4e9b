import { describe, expect, it } from 'vitest';

import { allToggled, nothingPicked, offersWholeGroup, picksNow, toggled, wholeGroupPicked } from './picks';

const page = ['a', 'b', 'c'];

describe("a review group's selection", () => {
  it('offers the whole group only once every item of the page is ticked and more wait elsewhere', () => {
    let picks = toggled(nothingPicked('0/20'), page, '0/20', 'a', true);
    expect(offersWholeGroup(picksNow(picks, page, '0/20'), page.length, 45)).toBe(false);
    picks = allToggled(page, '0/20', true);
    expect(offersWholeGroup(picksNow(picks, page, '0/20'), page.length, 45)).toBe(true);
    // Everything waiting is on the page: nothing more to offer.
    expect(offersWholeGroup(picksNow(picks, page, '0/20'), page.length, 3)).toBe(false);
    expect(offersWholeGroup(picksNow(picks, page, '0/20'), page.length, undefined)).toBe(false);
  });

  it('holds the whole group, and stops offering it, once it is chosen', () => {
    const picks = wholeGroupPicked(page, '0/20');
    const now = picksNow(picks, page, '0/20');
    expect(now.wholeGroup).toBe(true);
    expect([...now.selected]).toEqual(page);
    expect(offersWholeGroup(now, page.length, 45)).toBe(false);
  });

  it('drops the whole group when any item is unticked, and does not bring it back on ticking it again', () => {
    let picks = toggled(wholeGroupPicked(page, '0/20'), page, '0/20', 'b', false);
    expect(picksNow(picks, page, '0/20')).toEqual({ selected: new Set(['a', 'c']), wholeGroup: false });
    picks = toggled(picks, page, '0/20', 'b', true);
    expect(picksNow(picks, page, '0/20')).toEqual({ selected: new Set(page), wholeGroup: false });
    // "Select all" on the page is the page's items only.
    expect(picksNow(allToggled(page, '0/20', true), page, '0/20').wholeGroup).toBe(false);
    expect(picksNow(allToggled(page, '0/20', false), page, '0/20').selected.size).toBe(0);
  });

  it('selects nothing on another page or page size', () => {
    const picks = wholeGroupPicked(page, '0/20');
    expect(picksNow(picks, ['d', 'e'], '1/20')).toEqual({ selected: new Set(), wholeGroup: false });
    expect(picksNow(picks, page, '0/50')).toEqual({ selected: new Set(), wholeGroup: false });
  });

  it('stops being the whole group when an item it did not tick appears on the page', () => {
    const picks = wholeGroupPicked(page, '0/20');
    const now = picksNow(picks, ['new', ...page], '0/20');
    expect(now.wholeGroup).toBe(false);
    expect(now.selected).toEqual(new Set(page));
    // Items that left the page leave the selection; the rest still are the whole group.
    expect(picksNow(picks, ['a', 'c'], '0/20')).toEqual({ selected: new Set(['a', 'c']), wholeGroup: true });
  });

  it('never ticks an item that is not listed', () => {
    const picks = toggled(nothingPicked('0/20'), page, '0/20', 'gone', true);
    expect(picksNow(picks, page, '0/20').selected.size).toBe(0);
    expect(picksNow(wholeGroupPicked([], '0/20'), [], '0/20').wholeGroup).toBe(false);
  });
});
