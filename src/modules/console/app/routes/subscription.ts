// Subscription: the tier and period, usage against the limits as bar charts (storage, documents,
// AI credits; requests as the per-minute limit, the only request figure the API gives), a checkout
// for another tier as the API offers it, and the history of tier changes. Owners, admins, API keys.
import { useState } from 'preact/hooks';
import { formatBytes, formatDate, t } from '../i18n.ts';
import { client, type OperationResponse } from '../sdk.ts';
import { ErrorLine, h } from '../ui.ts';
import { attempt, BarChart, Field, Loading, StatusBadge, useLoad, when } from './account-ui.ts';

const TIERS = ['starter', 'pro', 'team', 'enterprise'] as const;
type Checkout = OperationResponse<'postSubscriptionCheckout'>;
const count = new Intl.NumberFormat();
const num = (n: number) => count.format(n);

export default function Subscription() {
  const status = useLoad(() => client().call('getSubscriptionStatus'));
  const history = useLoad(() => client().call('getSubscriptionHistory', { query: { page_size: 20 } }));
  const [checkout, setCheckout] = useState<Checkout | null>(null);
  const [error, setError] = useState<unknown>(null);
  if (!status.data) return h(Loading, { error: status.error });
  const s = status.data;
  const start = (e: Event) => {
    e.preventDefault();
    const tier = new FormData(e.target as HTMLFormElement).get('tier') as (typeof TIERS)[number];
    const back = location.href;
    void attempt(
      async () =>
        setCheckout(
          await client().call('postSubscriptionCheckout', { body: { tier, success_url: back, cancel_url: back } }),
        ),
      setError,
    );
  };
  const refresh = () =>
    checkout &&
    void attempt(async () => {
      const c = await client().call('getSubscriptionCheckout', { path: { checkout_id: checkout.checkout_id } });
      setCheckout(c);
      if (c.status === 'completed') status.reload();
    }, setError);
  return h(
    'div',
    { class: 'account' },
    h('h1', {}, t('sub.title')),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'plan-title' },
      h('h2', { id: 'plan-title', class: 'card-title' }, t('sub.plan', { tier: s.tier })),
      h(
        'p',
        {},
        h(StatusBadge, { value: s.status }),
        ' ',
        t('sub.period', { from: formatDate(s.current_period_start), to: formatDate(s.current_period_end) }),
        s.cancel_at ? ` · ${t('sub.cancelAt', { date: formatDate(s.cancel_at) })}` : '',
      ),
      h(
        'p',
        { class: 'muted' },
        t('sub.features', {
          list:
            Object.entries(s.features)
              .filter(([, on]) => on)
              .map(([k]) => k.replace(/_/g, ' '))
              .join(', ') || '—',
        }),
      ),
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'usage-title' },
      h('h2', { id: 'usage-title', class: 'card-title' }, t('sub.usage')),
      h(BarChart, {
        title: t('sub.usage'),
        bars: [
          { label: t('sub.storage'), used: s.usage.storage_bytes, limit: s.limits.storage_bytes, format: formatBytes },
          { label: t('sub.documents'), used: s.usage.documents, limit: s.limits.documents, format: num },
          { label: t('sub.credits'), used: s.usage.ai_credits_used, limit: s.limits.ai_credits, format: num },
        ],
      }),
      h(
        'p',
        { class: 'muted' },
        s.limits.requests_per_minute === null
          ? t('sub.requestsUnlimited')
          : t('sub.requests', { n: num(s.limits.requests_per_minute) }),
      ),
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'checkout-title' },
      h('h2', { id: 'checkout-title', class: 'card-title' }, t('sub.change')),
      h(
        'form',
        { class: 'row', onSubmit: start, 'aria-label': t('sub.change') },
        h(
          Field,
          { label: t('sub.tier') },
          h(
            'select',
            { name: 'tier' },
            TIERS.filter((x) => x !== s.tier).map((x) => h('option', { key: x, value: x }, x)),
          ),
        ),
        h('button', { type: 'submit', class: 'primary' }, t('sub.checkout')),
      ),
      h(ErrorLine, { error }),
      checkout
        ? h(
            'div',
            { role: 'status' },
            h(
              'p',
              {},
              t('sub.checkoutState', { tier: checkout.tier, date: when(checkout.expires_at) }),
              ' ',
              h(StatusBadge, { value: checkout.status }),
            ),
            h(
              'p',
              { class: 'row' },
              h(
                'a',
                { class: 'button primary', href: checkout.checkout_url, target: '_blank', rel: 'noopener' },
                t('sub.pay'),
              ),
              h('button', { type: 'button', onClick: refresh }, t('sub.refresh')),
            ),
          )
        : null,
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'history-title' },
      h('h2', { id: 'history-title', class: 'card-title' }, t('sub.history')),
      history.data
        ? history.data.data.length === 0
          ? h('p', { class: 'muted' }, t('sub.noHistory'))
          : h(
              'ul',
              { class: 'list' },
              history.data.data.map((c) =>
                h(
                  'li',
                  { key: c.id },
                  h(
                    'span',
                    {},
                    t('sub.changed', { from: c.from_tier, to: c.to_tier, reason: c.reason.replace(/_/g, ' ') }),
                  ),
                  h('span', { class: 'muted' }, when(c.changed_at)),
                ),
              ),
            )
        : h(Loading, { error: history.error }),
    ),
  );
}
