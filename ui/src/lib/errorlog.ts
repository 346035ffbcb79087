// Uncaught UI errors land in the local error log (SPEC §8): {type, message, stack, info, url, time}.
import { store } from './storage';

export type LogEntry = { type: string; message: string; stack: string; info: string; url: string; time: string };

export function addLog(prefix: string, e: Omit<LogEntry, 'url' | 'time'>) {
  const s = store(prefix);
  const logs = (s.get<LogEntry[]>('logs') as LogEntry[] | undefined) ?? [];
  logs.unshift({ ...e, url: location.href, time: new Date().toISOString().replace('T', ' ').slice(0, 19) });
  s.set('logs', logs.slice(0, 200));
  window.dispatchEvent(new Event('zz-logs'));
}

export function installErrorLog(prefix: string) {
  window.addEventListener('error', (ev) => addLog(prefix, { type: 'error', message: String(ev.message), stack: ev.error?.stack ?? '', info: `${ev.filename}:${ev.lineno}` }));
  window.addEventListener('unhandledrejection', (ev) => addLog(prefix, { type: 'promise', message: String(ev.reason?.message ?? ev.reason), stack: ev.reason?.stack ?? '', info: 'unhandledrejection' }));
}

export function readLogs(prefix: string): LogEntry[] {
  const v = store(prefix).get<LogEntry[]>('logs');
  return Array.isArray(v) ? (v as LogEntry[]) : [];
}

export function clearLogs(prefix: string) {
  store(prefix).remove('logs');
  window.dispatchEvent(new Event('zz-logs'));
}

/** The header badge: nothing for no entries, then the count, capped at 99 (SPEC §9). */
export function badgeText(n: number): string {
  if (!(n > 0)) return '';
  return n > 99 ? '99+' : String(Math.floor(n));
}
