import { describe, expect, it } from 'vitest';

import { href, matchPath, pathOf, route } from './router';

describe('router', () => {
  it('reads the path from the location hash', () => {
    expect(pathOf('')).toBe('/');
    expect(pathOf('#/')).toBe('/');
    expect(pathOf('#/plans/abc?x=1')).toBe('/plans/abc');
    expect(pathOf('#reviews')).toBe('/reviews');
    expect(href('/plans/abc')).toBe('#/plans/abc');
  });

  it('matches patterns with parameters and nothing else', () => {
    expect(matchPath('/plans/:id', '/plans/a%20b')).toEqual({ id: 'a b' });
    expect(matchPath('/plans/:id', '/plans')).toBeNull();
    expect(matchPath('/plans/:id', '/missions/1')).toBeNull();
    expect(matchPath('/plans/:id', '/plans/%E0%A4%A')).toBeNull();
    expect(matchPath('/', '/')).toEqual({});
  });

  it('picks the first view whose pattern matches', () => {
    const views = [{ path: '/' }, { path: '/plans/:id' }, { path: '/reviews' }];
    expect(route(views, '/plans/7')).toEqual({ view: views[1], params: { id: '7' } });
    expect(route(views, '/nowhere')).toBeNull();
  });
});
