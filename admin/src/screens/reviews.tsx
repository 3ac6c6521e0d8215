// Reviews: the posts writers submitted on this website, oldest first, for its editors; each opens in
// the editor, where it is approved (now or at a time) or sent back with a note.
import { api } from '../api.js';
import { useResource } from '../hooks.js';
import { formatDateTime, t } from '../i18n.js';
import { PanelLink } from '../widgets.js';

interface Pending {
  id: number;
  title: string;
  author_name: string | null;
  submitted_at: string;
}

export function ReviewsScreen() {
  const list = useResource(() => api.GET('/api/v2/reviews'), []);
  const rows: Pending[] | null = list.error ? null : (list.data?.data ?? null);
  const error = list.error ? (list.error.detail ?? list.error.title) : null;
  return (
    <section aria-labelledby="reviews-title">
      <h1 id="reviews-title">{t('reviews.title')}</h1>
      {error && <p role="alert">{t('app.error', { message: error })}</p>}
      {rows === null ? (
        !error && <p aria-live="polite">{t('app.loading')}</p>
      ) : rows.length === 0 ? (
        <p>{t('reviews.empty')}</p>
      ) : (
        <ul class="cards">
          {rows.map((row) => (
            <li key={row.id} data-post={row.id}>
              <PanelLink to={`/admin/posts/${row.id}`}>{row.title || t('posts.untitled')}</PanelLink>
              <p class="help">
                {t('reviews.submitted', {
                  time: formatDateTime(row.submitted_at),
                  name: row.author_name ?? '',
                })}
              </p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
