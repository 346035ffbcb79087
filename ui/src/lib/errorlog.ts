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
