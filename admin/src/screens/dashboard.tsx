// Dashboard, the panel's first screen: what needs doing on this website at a glance, from the
// totals of the lists the other screens show (posts published in the last seven days, drafts,
// posts waiting for review, comments waiting), each a link to its screen; the cards shown are the
// ones the user's abilities make useful. Below: views and clicks per day (a chart, with the same
// numbers as a table for screen readers), the most viewed posts, and for administrators the
// installation's health.
import { Fragment } from 'preact';
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../../clients/typescript/schema.js';
import { api } from '../api.js';
import type { Problem } from '../api.js';
import { useResource } from '../hooks.js';
import type * as ChartModule from '../charts/views-chart.js';
import { t } from '../i18n.js';
import type { MessageKey } from '../i18n.js';
import { follow } from '../nav.js';
import { useAbilities, useMe } from '../session.js';
import { PanelLink } from '../widgets.js';

const DAYS = 30;
type Stats = components['schemas']['SiteStats']['data'];
type Health = components['schemas']['Health']['data'];

/** uPlot and the chart load on demand (their own chunk), the first time a chart shows. */
let chartModule: Promise<typeof ChartModule> | null = null;

function formatDay(date: string): string {
  return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' }).format(
    new Date(`${date}T00:00:00Z`),
  );
}

function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 }).format(value)} ${units[unit]}`;
}

function StatsSection({ stats }: { stats: Stats }) {
  const [module, setModule] = useState<typeof ChartModule | null>(null);
  useEffect(() => {
    chartModule ??= import('../charts/views-chart.js');
    void chartModule.then(setModule);
  }, []);
  const best = stats.days.reduce<Stats['days'][number] | null>(
    (top, day) => (day.views > 0 && (!top || day.views > top.views) ? day : top),
    null,
  );
  const summary = t('stats.summary', {
    views: stats.totals.views,
    clicks: stats.totals.clicks,
    days: stats.days.length,
    best: best
      ? t('stats.summary.best', { date: formatDay(best.date), views: best.views })
      : t('stats.summary.none'),
  });
  return (
    <section class="panel-card stats" aria-labelledby="stats-title">
      <h2 id="stats-title">{t('stats.title', { days: stats.days.length })}</h2>
      <p class="stats-summary">{summary}</p>
      <figure class="chart" aria-describedby="stats-title">
        {module ? (
          <module.ViewsChart
            days={stats.days}
            labels={{ day: t('stats.date'), views: t('stats.views'), clicks: t('stats.clicks') }}
          />
        ) : (
          <p aria-live="polite">{t('app.loading')}</p>
        )}
      </figure>
      <table class="visually-hidden">
        <caption>{t('stats.table')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('stats.date')}</th>
            <th scope="col">{t('stats.views')}</th>
            <th scope="col">{t('stats.clicks')}</th>
          </tr>
        </thead>
        <tbody>
          {stats.days.map((day) => (
            <tr key={day.date}>
              <th scope="row">{formatDay(day.date)}</th>
              <td>{day.views}</td>
              <td>{day.clicks}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function TopPosts({ stats }: { stats: Stats }) {
  return (
    <section class="panel-card top-posts" aria-labelledby="top-title">
      <h2 id="top-title">{t('stats.top', { days: stats.days.length })}</h2>
      {stats.top_posts.length === 0 ? (
        <p>{t('stats.top.empty')}</p>
      ) : (
        <ol>
          {stats.top_posts.map((post) => (
            <li key={post.id}>
              <PanelLink to={`/admin/posts/${post.id}`}>{post.title || t('posts.untitled')}</PanelLink>{' '}
              <span class="count">{t('stats.top.views', { n: post.views })}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

function HealthCard({ health }: { health: Health }) {
  const probe = (name: string, ok: boolean, ms: number | null) =>
    ok ? t('health.ok', { name, ms: ms ?? 0 }) : t('health.down', { name });
  const cacheName = t(health.cache.kind === 'redis' ? 'health.cache.redis' : 'health.cache.memory');
  return (
    <section class="panel-card health" aria-labelledby="health-title" data-health>
      <h2 id="health-title">{t('health.title')}</h2>
      <dl>
        <dt>{t('health.database')}</dt>
        <dd class={health.database.ok ? 'ok' : 'bad'}>
          {probe(
            health.database.dialect === 'postgres' ? 'PostgreSQL' : 'SQLite',
            health.database.ok,
            health.database.latency_ms,
          )}
        </dd>
        <dt>{t('health.cache')}</dt>
        <dd class={health.cache.ok ? 'ok' : 'bad'}>
          {probe(cacheName, health.cache.ok, health.cache.latency_ms)}
        </dd>
        {health.disk.map((disk) => (
          <Fragment key={disk.label}>
            <dt>{t('health.disk', { label: t(`health.disk.${disk.label}` as MessageKey) })}</dt>
            <dd title={disk.path}>
              {t('health.disk.value', {
                free: formatBytes(disk.free_bytes),
                total: formatBytes(disk.total_bytes),
              })}
            </dd>
          </Fragment>
        ))}
        <dt>{t('health.version')}</dt>
        <dd>{health.version}</dd>
        <dt>{t('health.update')}</dt>
        <dd>
          {health.update_available === null
            ? t('health.update.unknown')
            : health.update_available
              ? t('health.update.yes', { version: health.latest_version ?? '' })
              : t('health.update.no')}
        </dd>
      </dl>
    </section>
  );
}

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;
/** The most a list answers in one page: counts at this cap are shown as "100+". */
const CAP = 100;

type Counts = Partial<Record<'week' | 'drafts' | 'pending' | 'comments', number>>;

/** An answer of API v2 as useResource takes it: the body's data, or the problem. */
const answerOf = <T,>({ data, error }: { data?: { data: T }; error?: Problem }) => ({
  data: data?.data,
  error,
});
/** What a load the user may not make answers: nothing (the card or section is not shown). */
const nothing = <T,>(): Promise<{ data?: T }> => Promise.resolve({});

/** A card's figure: loaded once, by `count` (none when it is false); undefined until it comes. */
function useCount(count: false | (() => Promise<number>)): number | undefined {
  const figure = useResource<number>(
    () => (count ? count().then((data) => ({ data })) : nothing<number>()),
    [],
  );
  return figure.data ?? undefined;
}

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
  // The API lists a published post dated later as scheduled (issue 36 #9); the bound is kept here too.
  const now = Date.now();
  const since = now - WEEK_MS;
  return (data?.data ?? []).filter((post) => {
    const at = post.published_at ? Date.parse(post.published_at) : NaN;
    return at >= since && at <= now;
  }).length;
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
  // Each figure loads on its own (its card fills in when it comes); one the user may not use loads nothing.
  const counts: Counts = {
    week: useCount(publishedThisWeek),
    drafts: useCount(() => postTotal('draft')),
    pending: useCount(can.review_posts && (() => postTotal('pending'))),
    comments: useCount(can.moderate_comments && commentsWaiting),
  };
  const stats = useResource(
    () =>
      can.read_stats
        ? api.GET('/api/v2/stats', { params: { query: { days: DAYS } } }).then(answerOf)
        : nothing<Stats>(),
    [],
  ).data;
  const health = useResource(
    () => (me.is_admin ? api.GET('/api/v2/system/health').then(answerOf) : nothing<Health>()),
    [],
  ).data;

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
      <div class="insight-grid">
        {stats && <StatsSection stats={stats} />}
        {stats && <TopPosts stats={stats} />}
        {health && <HealthCard health={health} />}
      </div>
    </section>
  );
}
