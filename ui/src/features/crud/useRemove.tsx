// The delete flow both list screens share (SPEC §5): nothing selected → 请选择至少一条数据; otherwise
// 确定将选择数据删除? and, when confirmed, POST <api>/remove?ids=… then 删除成功 (or the server's message).
import { useState, type ReactNode } from 'react';
import { useTranslation } from '../../i18n/react';
import { post, ApiError } from '../../lib/api';
import { Confirm } from '../../components/ui/dialog';
import { useToast } from '../../components/ui/toast';

/**
 * `ask(ids)` starts a removal; `confirm` is the dialog to render. `refuse(ids)` may name a message key that
 * stops the removal before asking (sealed dictionary entries); `done` runs after the server removed them.
 */
export function useRemove(api: string | ((ids: string[]) => Promise<void>), done: () => void, refuse?: (ids: string[]) => string | null): { ask: (ids: string[]) => void; confirm: ReactNode } {
  const { t } = useTranslation();
  const toast = useToast();
  const [ids, setIds] = useState<string[] | null>(null);
  const ask = (list: string[]) => {
    if (!list.length) return toast(t('crud.selectOne'), 'warning');
    const why = refuse?.(list);
    if (why) return toast(t(why), 'warning');
    setIds(list);
  };
  const remove = async () => {
    try {
      if (typeof api === 'string') await post(api + '/remove', undefined, { ids: ids!.join(',') });
      else await api(ids!);
      toast(t('crud.deleted'));
      done();
    } catch (e) {
      toast(e instanceof ApiError ? t(e.message) : t('err.unknown'), 'error');
    }
  };
  const confirm = <Confirm open={ids !== null} onOpenChange={(o) => { if (!o) setIds(null); }} text={t('crud.deleteConfirm')} onConfirm={remove} />;
  return { ask, confirm };
}
