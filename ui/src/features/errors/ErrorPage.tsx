import { useTranslation } from '../../i18n/react';

export function ErrorPage({ code }: { code: 403 | 404 | 500 }) {
  const { t } = useTranslation();
  return (
    <main className="error-page">
      <div className="error-code">{code}</div>
      <p>{t('page.' + code)}</p>
      <a className="btn btn-primary" href="/wel/index">{t('page.backHome')}</a>
    </main>
  );
}
