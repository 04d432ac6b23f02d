// Small pieces shared by the account pages (webhooks, members, subscription, storage, imports,
// audit, and the document's records): loading with an error, a progress bar, an SVG bar chart,
// and saving a download the SDK answered.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { t } from '../i18n.ts';
import { ErrorLine, h } from '../ui.ts';

/** Loads once (and again on `reload()`); `again` > 0 polls every `again` ms while `poll(data)` holds. */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[] = [],
  poll?: (data: T) => boolean,
): { data: T | null; error: unknown; reload: () => void; setError: (e: unknown) => void } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = () =>
      load().then(
        (d) => {
          if (!live) return;
          setData(d);
          if (poll?.(d)) timer = setTimeout(tick, 1500);
        },
        (e) => live && setError(e),
      );
    void tick();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [...deps, round]);
  return { data, error, reload: () => setRound((r) => r + 1), setError };
}

/** Runs an action, showing its error in words; answers whether it succeeded. */
export async function attempt(work: () => Promise<unknown>, setError: (e: unknown) => void): Promise<boolean> {
  setError(null);
  try {
    await work();
    return true;
  } catch (e) {
    setError(e);
    return false;
  }
}

export function Loading({ error }: { error: unknown }) {
  return error ? h(ErrorLine, { error }) : h('p', { class: 'muted', role: 'status' }, t('loading'));
}

/** A labelled progress bar with its figure in words beside it. */
export function Progress({ label, value, max, text }: { label: string; value: number; max: number; text: string }) {
  return h(
    'div',
    { class: 'progress-line' },
    h('progress', { value: max > 0 ? value : 0, max: max > 0 ? max : 1, 'aria-label': label }),
    h('span', { class: 'muted' }, text),
  );
}

export interface Bar {
  label: string;
  used: number;
  /** null: unlimited. */
  limit: number | null;
  format: (n: number) => string;
}

/** Horizontal bars of use against limit, each drawn in SVG under its figures in words. */
export function BarChart({ title, bars }: { title: string; bars: Bar[] }) {
  return h(
    'ul',
    { class: 'bars', 'aria-label': title },
    bars.map((b) => {
      const share = b.limit ? Math.min(1, b.used / b.limit) : 0;
      const width = b.used > 0 ? Math.max(share * 100, 0.6) : 0;
      return h(
        'li',
        { key: b.label },
        h(
          'span',
          {},
          h('strong', {}, b.label),
          ': ',
          b.limit === null
            ? t('acct.usage.unlimited', { used: b.format(b.used) })
            : t('acct.usage.of', {
                used: b.format(b.used),
                limit: b.format(b.limit),
                pct: b.limit ? Math.round(share * 100) : 0,
              }),
        ),
        h(
          'svg',
          { viewBox: '0 0 100 4', preserveAspectRatio: 'none', 'aria-hidden': 'true', focusable: 'false' },
          h('rect', { x: 0, y: 0, width: 100, height: 4, class: 'bar-track' }),
          h('rect', { x: 0, y: 0, width, height: 4, class: share >= 0.9 ? 'bar-fill bar-high' : 'bar-fill' }),
        ),
      );
    }),
  );
}

/** Saves a Response the SDK answered (a download) under `filename`. */
export async function saveResponse(res: Response, filename: string): Promise<void> {
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function Field({ label, children }: { label: string; children?: ComponentChildren }) {
  return h('label', { class: 'field' }, h('span', {}, label), children);
}

/**
 * A password input in its field: a new password within the service's bounds (8–256), the
 * current one unbounded (it was set under older rules); `autocomplete` tells password managers which.
 */
export function PasswordField({ label, name, current = false }: { label: string; name: string; current?: boolean }) {
  return h(
    Field,
    { label },
    h('input', {
      name,
      type: 'password',
      required: true,
      autocomplete: current ? 'current-password' : 'new-password',
      ...(current ? {} : { minLength: 8, maxLength: 256 }),
    }),
  );
}

/** A state of the API as a coloured badge in words. */
export function StatusBadge({ value }: { value: string }) {
  const tone = /^(active|success|completed|ready)$/.test(value)
    ? 'ok'
    : /^(failed|disabled|cancelled|expired|released|completed_with_errors|denied|refused)$/.test(value)
      ? 'bad'
      : 'busy';
  return h('span', { class: `badge ${tone}` }, t('acct.state', { s: value.replace(/_/g, ' ') }));
}

const stamps = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
/** A moment with its time of day (logs, audit records). */
export function when(iso: string): string {
  return stamps.format(new Date(iso));
}
