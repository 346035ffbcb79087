// A picker given a record's id without its title (a filter from the address, a form opened after a reload) must
// never show the bare id while the title is asked, nor in the server's render.
import { expect, test } from 'bun:test';
import { renderToString } from 'react-dom/server';
import { I18n } from '../../i18n';
import { I18nextProvider } from '../../i18n/react';
import type { Field } from '../../types';
import { RefPicker } from './FormDialog';

const PROJECT = { name: 'projectId', refers: { resource: 'project' } } as unknown as Field;
const render = (value: string, label: string) =>
  renderToString(<I18nextProvider i18n={new I18n('zh')}><RefPicker id="p" field={PROJECT} value={value} label={label} onChange={() => {}} /></I18nextProvider>);

test('an id without its title renders an empty box that says it is reading, not the id', () => {
  const html = render('1712345678901234567', '');
  expect(html).not.toContain('1712345678901234567');
  expect(html).toContain('placeholder="读取中…"');
});

test('a known title is shown; nothing chosen asks for a keyword', () => {
  expect(render('1712345678901234567', '城东花园')).toContain('value="城东花园"');
  expect(render('', '')).toContain('placeholder="输入关键字搜索"');
});
