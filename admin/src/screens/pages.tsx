// Pages: the website's pages (drafts too, for its editors), searchable, page by page; titles open the
// page editor.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { useResource } from '../hooks.js';
import { formatDateTime, t } from '../i18n.js';
import { PanelLink, Pager, SearchForm } from '../widgets.js';
import type { MessageKey } from '../i18n.js';
import { follow } from '../nav.js';
import { useAbilities } from '../session.js';

interface Row {
  id: number;
  title: string;
  slug: string;
  status: string;
  template: string | null;
  updated_at: string;
}

export function PagesScreen() {
  const can = useAbilities();
  const [query, setQuery] = useState('');
  const [page, setPage] = useState(1);
  const list = useResource(
    () =>
      api.GET('/api/v2/pages', { params: { query: { page, per_page: 20, ...(query ? { q: query } : {}) } } }),
    [query, page],
  );
  // Each load shows "Loading" (or the problem) instead of the rows; the pager keeps the last count.
  const rows: Row[] | null = list.loading || list.error ? null : (list.data?.data ?? null);
  const pages = list.data?.meta.pagination.total_pages ?? 1;
  const error = list.error ? (list.error.detail ?? list.error.title) : null;

  return (
    <section aria-labelledby="pages-title">
      <div class="screen-head">
        <h1 id="pages-title">{t('pages.title')}</h1>
        {can.manage_pages && (
          <a
            class="button"
            href="/admin/pages/new"
            onClick={(event) => follow(event, '/admin/pages/new', t('app.leave'))}
          >
            {t('pages.new')}
          </a>
        )}
      </div>
      <SearchForm
        id="page-search"
        label={t('pages.search')}
        onSearch={(words) => {
          setQuery(words);
          setPage(1);
        }}
      />
      {error && <p role="alert">{t('app.error', { message: error })}</p>}
      {rows === null ? (
        !error && <p aria-live="polite">{t('app.loading')}</p>
      ) : rows.length === 0 ? (
        <p>{t('pages.empty')}</p>
      ) : (
        <table class="posts">
          <thead>
            <tr>
              <th scope="col">{t('posts.column.title')}</th>
              <th scope="col">{t('posts.column.status')}</th>
              <th scope="col">{t('pages.template')}</th>
              <th scope="col">{t('posts.column.updated')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id} data-page={row.id}>
                <td data-label={t('posts.column.title')}>
                  <PanelLink to={`/admin/pages/${row.id}`}>{row.title || t('posts.untitled')}</PanelLink>
                </td>
                <td data-label={t('posts.column.status')}>
                  <span class={`status status-${row.status}`}>
                    {t(`post.status.${row.status}` as MessageKey)}
                  </span>
                </td>
                <td data-label={t('pages.template')}>{row.template ?? t('pages.template.plain')}</td>
                <td data-label={t('posts.column.updated')}>
                  <time dateTime={row.updated_at}>{formatDateTime(row.updated_at)}</time>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager page={page} pages={pages} onPage={setPage} />
    </section>
  );
}
