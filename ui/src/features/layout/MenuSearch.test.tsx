import { describe, expect, test } from 'bun:test';
import { renderToStaticMarkup } from 'react-dom/server';
import { groupHits, marked, type SearchHit } from './MenuSearch';

describe('search box', () => {
  test('marks come from <em> and nothing else becomes markup', () => {
    const html = renderToStaticMarkup(<p>{marked('订单&lt;<em>超时</em>&gt; &amp; <em>a&quot;b</em>')}</p>);
    expect(html).toBe('<p><span>订单&lt;</span><mark>超时</mark><span>> &amp; </span><mark>a&quot;b</mark></p>');
    expect(renderToStaticMarkup(<p>{marked('<script>x</script>')}</p>)).toBe('<p><span>&lt;script>x&lt;/script></span></p>');
  });
  test('hits group by resource in the order groups first appear', () => {
    const h = (resourceLabel: string, id: string): SearchHit => ({ resource: resourceLabel, resourceLabel, id, title: id, snippet: '', fieldLabel: '', link: '/' });
    const groups = groupHits([h('用户', '1'), h('机构', '2'), h('用户', '3')]);
    expect(groups.map((g) => [g.label, g.hits.map((x) => x.id)])).toEqual([['用户', ['1', '3']], ['机构', ['2']]]);
  });
});
