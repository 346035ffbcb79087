// One page of a list the flow screens show: Blade paging as a GET query (`current`, `size`) or, for the
// blade-scm routes, a POST body (`page`, `size`), with the filters beside; reloads when they change.
import { useCallback, useEffect, useState } from 'react';
import { get, post, ApiError } from '../../lib/api';

type Row = Record<string, any>;
export type PageState = { records: Row[]; total: number; pages: number };

export function usePage(url: string, filters: Record<string, unknown> = {}, method: 'GET' | 'POST' = 'GET') {
  const [page, setPage] = useState({ current: 1, size: 10 });
  const [data, setData] = useState<PageState | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const key = JSON.stringify(filters);
  const load = useCallback(async () => {
    try {
      setErr(null);
      const f = JSON.parse(key);
      setData(method === 'GET' ? await get(url, { current: page.current, size: page.size, ...f }) : await post(url, { page: page.current, size: page.size, ...f }));
    } catch (e) {
      setErr(e instanceof ApiError ? e.message : String(e));
    }
  }, [url, page, key, method]);
  useEffect(() => { void load(); }, [load]);
  return { page, setPage, data, err, load };
}
