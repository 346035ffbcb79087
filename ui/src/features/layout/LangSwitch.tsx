import { useTranslation } from '../../i18n/react';
import { useApp } from '../../app';

export function LangSwitch() {
  const { t } = useTranslation();
  const { props, setLocale } = useApp();
  return (
    <div className="lang-switch" role="group" aria-label={t('top.language')}>
      <button type="button" lang="zh-CN" aria-pressed={props.locale === 'zh'} onClick={() => setLocale('zh')}>中文</button>
      <button type="button" lang="en" aria-pressed={props.locale === 'en'} onClick={() => setLocale('en')}>English</button>
    </div>
  );
}
