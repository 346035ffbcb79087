import { describe, expect, test } from 'bun:test';
import { htmlText, isHtml } from './FormDialog';

describe('rich text shown in a view dialog', () => {
  test('a notice written as HTML reads as its text, paragraphs as lines', () => {
    const html = '<p>本月最后一个工作日 14:00 起盘点，&nbsp;请提前<b>完成</b>出入库。</p><p>联系人:刘强<br/>电话 139&lt;内线&gt;</p>';
    expect(isHtml(html)).toBe(true);
    expect(htmlText(html)).toBe('本月最后一个工作日 14:00 起盘点， 请提前完成出入库。\n联系人:刘强\n电话 139<内线>');
  });
  test('plain text, or text that only mentions a tag, is left as it is', () => {
    expect(isHtml('面积 < 50㎡ 的房间')).toBe(false);
    expect(isHtml('用 <p> 标签分段')).toBe(false);
    expect(isHtml(null)).toBe(false);
  });
  test('markup never survives: a script is dropped to its text', () => {
    expect(htmlText('<p>a<script>alert(1)</script><img src=x onerror=alert(2)>b</p>')).toBe('aalert(1)b');
  });
});
