// Posts: the list of the website's posts the editor may see, by status (with counts), searchable,
// page by page. Titles open the post's editor.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { formatDateTime, t } from '../i18n.js';
import type { MessageKey } from '../i18n.js';
import { follow } from '../nav.js';

const STATUSES = ['any', 'draft', 'pending', 'published', 'scheduled'] as const;
type Status = (typeof STATUSES)[number];
const PER_PAGE = 20;

interface Row {
  id?: number;
  title?: string;
  status?: string;
  updated_at?: string;
  author?: { id: number; name: string } | null;
}

export function PostsScreen() {
  const [status, setStatus] = useState<Status>('any');
  const [query, setQuery] = useState('');
  const [typed, setTyped] = useState('');
  const [page, setPage] = useState(1);
  const [rows, setRows] = useState<Row[] | null>(null);
  const [pages, setPages] = useState(1);
  const [counts, setCounts] = useState<Partial<Record<Status, number>>>({});
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    setRows(null);
    void api
      .GET('/api/v2/posts', {
        params: {
          query: {
            page,
            per_page: PER_PAGE,
            sort: '-updated_at',
            include: 'author',
            fields: 'id,title,status,updated_at,author',
            ...(query ? { q: query } : {}),
            filter: { status },
          },
        },
      })
      .then(({ data, error: problem }) => {
        if (!live) return;
        if (problem) return setError(problem.title);
        setRows(data.data);
        setPages(data.meta.pagination.total_pages);
      });
    return () => {
      live = false;
    };
  }, [status, query, page]);

  useEffect(() => {
    // The count of each status: one small request each (the list's total).
    void Promise.all(
      STATUSES.map(async (name) => {
        const { data } = await api.GET('/api/v2/posts', {
          params: {
            query: { per_page: 1, fields: 'id', filter: { status: name }, ...(query ? { q: query } : {}) },
          },
        });
        return [name, data?.meta.pagination.total ?? 0] as const;
      }),
    ).then((entries) => setCounts(Object.fromEntries(entries)));
  }, [query]);

  const choose = (next: Status) => {
    setStatus(next);
    setPage(1);
  };

  return (
    <section aria-labelledby="posts-title">
      <div class="screen-head">
        <h1 id="posts-title">{t('posts.title')}</h1>
        <a
          class="button"
          href="/admin/posts/new"
          onClick={(event) => follow(event, '/admin/posts/new', t('app.leave'))}
        >
          {t('posts.new')}
        </a>
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
        <label for="post-search">{t('posts.search')}</label>
        <input
          id="post-search"
          type="search"
          value={typed}
          onInput={(event) => setTyped(event.currentTarget.value)}
        />
        <button type="submit">{t('posts.search.button')}</button>
      </form>
      <nav class="tabs" aria-label={t('posts.column.status')}>
        {STATUSES.map((name) => (
          <button
            key={name}
            type="button"
            class={name === status ? 'tab current' : 'tab'}
            aria-pressed={name === status}
            onClick={() => choose(name)}
          >
            {t(`posts.status.${name}` as MessageKey)} <span class="count">{counts[name] ?? ''}</span>
          </button>
        ))}
      </nav>
      {error && <p role="alert">{t('app.error', { message: error })}</p>}
      {rows === null ? (
        <p aria-live="polite">{t('app.loading')}</p>
      ) : rows.length === 0 ? (
        <p>{t('posts.empty')}</p>
      ) : (
        <table class="posts">
          <thead>
            <tr>
              <th scope="col">{t('posts.column.title')}</th>
              <th scope="col">{t('posts.column.status')}</th>
              <th scope="col">{t('posts.column.author')}</th>
              <th scope="col">{t('posts.column.updated')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id} data-post={row.id}>
                <td data-label={t('posts.column.title')}>
                  <a
                    href={`/admin/posts/${row.id}`}
                    onClick={(event) => follow(event, `/admin/posts/${row.id}`, t('app.leave'))}
                  >
                    {row.title || t('posts.untitled')}
                  </a>
                </td>
                <td data-label={t('posts.column.status')}>
                  <span class={`status status-${row.status}`}>
                    {t(`posts.status.${row.status}` as MessageKey)}
                  </span>
                </td>
                <td data-label={t('posts.column.author')}>{row.author?.name ?? ''}</td>
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
