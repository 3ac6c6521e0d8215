// Dashboard, the panel's first screen: what needs doing on this website at a glance, from the
// totals of the lists the other screens show (posts published in the last seven days, drafts,
// posts waiting for review, comments waiting), each a link to its screen; the cards shown are the
// ones the user's abilities make useful.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { t } from '../i18n.js';
import type { MessageKey } from '../i18n.js';
import { follow } from '../nav.js';
import { useAbilities, useMe } from '../session.js';

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;
/** The most a list answers in one page: counts at this cap are shown as "100+". */
const CAP = 100;

type Counts = Partial<Record<'week' | 'drafts' | 'pending' | 'comments', number>>;

async function postTotal(status: 'draft' | 'pending'): Promise<number> {
  const { data } = await api.GET('/api/v2/posts', {
    params: { query: { per_page: 1, fields: 'id', filter: { status } } },
  });
  return data?.meta.pagination.total ?? 0;
}

async function publishedThisWeek(): Promise<number> {
  const { data } = await api.GET('/api/v2/posts', {
    params: {
      query: {
        per_page: CAP,
        sort: '-published_at',
        fields: 'id,published_at',
        filter: { status: 'published' },
      },
    },
  });
  const since = Date.now() - WEEK_MS;
  return (data?.data ?? []).filter((post) => post.published_at && Date.parse(post.published_at) >= since)
    .length;
}

async function commentsWaiting(): Promise<number> {
  const { data } = await api.GET('/api/v2/comments', {
    params: { query: { filter: { status: 'pending' }, per_page: CAP } },
  });
  return data?.data.length ?? 0;
}

function Card({
  value,
  label,
  href,
  link,
}: {
  value: number | undefined;
  label: MessageKey;
  href: string;
  link: MessageKey;
}): ComponentChildren {
  return (
    <li class="card" data-card={label}>
      <p class="card-value">{value === undefined ? '…' : value >= CAP ? `${CAP}+` : value}</p>
      <p class="card-label">{t(label)}</p>
      <a href={href} onClick={(event) => follow(event, href, t('app.leave'))}>
        {t(link)}
      </a>
    </li>
  );
}

export function DashboardScreen() {
  const me = useMe();
  const can = useAbilities();
  const [counts, setCounts] = useState<Counts>({});

  useEffect(() => {
    const set = (key: keyof Counts) => (value: number) =>
      setCounts((current) => ({ ...current, [key]: value }));
    void publishedThisWeek().then(set('week'));
    void postTotal('draft').then(set('drafts'));
    if (can.review_posts) void postTotal('pending').then(set('pending'));
    if (can.moderate_comments) void commentsWaiting().then(set('comments'));
  }, []);

  return (
    <section aria-labelledby="dashboard-title">
      <div class="screen-head">
        <h1 id="dashboard-title">{t('dashboard.title', { name: me.website?.name ?? '' })}</h1>
        {can.create_posts && (
          <a
            class="button"
            href="/admin/posts/new"
            onClick={(event) => follow(event, '/admin/posts/new', t('app.leave'))}
          >
            {t('posts.new')}
          </a>
        )}
      </div>
      <ul class="cards-grid">
        <Card value={counts.week} label="dashboard.week" href="/admin/posts" link="dashboard.week.link" />
        <Card
          value={counts.drafts}
          label="dashboard.drafts"
          href="/admin/posts"
          link="dashboard.drafts.link"
        />
        {can.review_posts && (
          <Card
            value={counts.pending}
            label="dashboard.pending"
            href="/admin/reviews"
            link="dashboard.pending.link"
          />
        )}
        {can.moderate_comments && (
          <Card
            value={counts.comments}
            label="dashboard.comments"
            href="/admin/comments"
            link="dashboard.comments.link"
          />
        )}
      </ul>
    </section>
  );
}
