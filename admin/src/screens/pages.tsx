// Pages: the website's pages (drafts too, for its editors), searchable, page by page; titles open the
// page editor.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { formatDateTime, t } from '../i18n.js';
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
  const [rows, setRows] = useState<Row[] | null>(null);
  const [typed, setTyped] = useState('');
  const [query, setQuery] = useState('');
  const [page, setPage] = useState(1);
  const [pages, setPages] = useState(1);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    setRows(null);
    void api
      .GET('/api/v2/pages', { params: { query: { page, per_page: 20, ...(query ? { q: query } : {}) } } })
      .then(({ data, error: problem }) => {
        if (problem) return setError(problem.detail ?? problem.title);
        setRows(data.data);
        setPages(data.meta.pagination.total_pages);
      });
  }, [query, page]);

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
      <form
        class="search"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setQuery(typed.trim());
          setPage(1);
        }}
      >
        <label for="page-search">{t('pages.search')}</label>
        <input
          id="page-search"
          type="search"
          value={typed}
          onInput={(event) => setTyped(event.currentTarget.value)}
        />
        <button type="submit">{t('posts.search.button')}</button>
      </form>
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
                  <a
                    href={`/admin/pages/${row.id}`}
                    onClick={(event) => follow(event, `/admin/pages/${row.id}`, t('app.leave'))}
                  >
                    {row.title || t('posts.untitled')}
                  </a>
                </td>
                <td data-label={t('posts.column.status')}>
                  <span class={`status status-${row.status}`}>
                    {t(`posts.status.${row.status}` as MessageKey)}
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
      {pages > 1 && (
        <nav class="pager" aria-label={t('posts.page', { page, pages })}>
          <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            {t('posts.previous')}
          </button>
          <span>{t('posts.page', { page, pages })}</span>
          <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            {t('posts.next')}
          </button>
        </nav>
      )}
    </section>
  );
}
