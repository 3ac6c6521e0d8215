// The post and page editors' "History" panel and "Share preview" button (issue 37). History: the revisions
// (paged, newest first), two of them compared side by side (the word-level diff the API computes:
// removed words on the left, added on the right; the other fields that differ in a table), and
// restoring one (with the editor's ETag: someone else's save in between is a 412, said as such).
// Share preview: a link anyone may open until it expires or is revoked, for a post not public yet.
import { useEffect, useState } from 'preact/hooks';
import { api, problemText } from '../api.js';
import type { components } from '../../../clients/typescript/schema.js';
import { formatDateTime, t } from '../i18n.js';
import type { MessageKey } from '../i18n.js';

type Summary = components['schemas']['RevisionSummary'];
type Comparison = components['schemas']['RevisionComparison'];
type Part = Comparison['text'][number]['parts'][number];

const PER_PAGE = 10;

/** Posts and pages have the same routes under their own path (typed as the posts' ones). */
type Kind = 'post' | 'page';
const base = (kind: Kind) => (kind === 'post' ? '/api/v2/posts' : '/api/v2/pages');

function Side({ parts, side }: { parts: Part[]; side: 'from' | 'to' }) {
  return (
    <div class={`diff-side diff-${side}`}>
      {parts.map((part, index) =>
        part.removed ? (
          side === 'from' ? (
            <del key={index}>{part.value}</del>
          ) : null
        ) : part.added ? (
          side === 'to' ? (
            <ins key={index}>{part.value}</ins>
          ) : null
        ) : (
          <span key={index}>{part.value}</span>
        ),
      )}
    </div>
  );
}

const shown = (value: unknown): string =>
  value === null || value === undefined
    ? '—'
    : Array.isArray(value)
      ? value.map(shown).join(', ') || '—'
      : typeof value === 'string'
        ? value
        : JSON.stringify(value);

/** The post's history: list, compare side by side, restore. `onRestored` reloads the editor. */
export function HistoryPanel({
  kind = 'post',
  postId,
  etag,
  version,
  onRestored,
}: {
  kind?: Kind;
  /** The post's or page's id. */
  postId: number;
  /** The ETag of the version the editor holds (the restore's If-Match). */
  etag: string;
  /** Changes when the post was saved: the list is read again. */
  version: string;
  onRestored: () => Promise<void>;
}) {
  const [open, setOpen] = useState(false);
  const [page, setPage] = useState(1);
  const [rows, setRows] = useState<Summary[]>([]);
  const [total, setTotal] = useState(0);
  const [from, setFrom] = useState<number | null>(null);
  const [to, setTo] = useState<number | null>(null);
  const [comparison, setComparison] = useState<Comparison | null>(null);
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);

  useEffect(() => {
    if (!open) return;
    void api
      .GET(`${base(kind)}/{id}/revisions` as '/api/v2/posts/{id}/revisions', {
        params: { path: { id: String(postId) }, query: { page, per_page: PER_PAGE } },
      })
      .then(({ data, error }) => {
        if (error) return setMessage({ kind: 'error', text: problemText(error) });
        setRows(data.data);
        setTotal(data.meta.pagination.total);
      })
      .catch(() => setMessage({ kind: 'error', text: t('editor.network') }));
  }, [open, page, postId, version]);

  const compare = async () => {
    if (from === null || to === null) return;
    const [older, newer] = from < to ? [from, to] : [to, from];
    const { data, error } = await api.GET(
      `${base(kind)}/{id}/revisions/compare` as '/api/v2/posts/{id}/revisions/compare',
      {
        params: { path: { id: String(postId) }, query: { from: String(older), to: String(newer) } },
      },
    );
    if (error) return setMessage({ kind: 'error', text: problemText(error) });
    setMessage(null);
    setComparison(data.data);
  };

  const restore = async (revision: Summary) => {
    if (!confirm(t('history.restore.confirm', { time: formatDateTime(revision.created_at) }))) return;
    const { data, error, response } = await api.POST(
      `${base(kind)}/{id}/revisions/{revision}/restore` as '/api/v2/posts/{id}/revisions/{revision}/restore',
      {
        params: { path: { id: String(postId), revision: String(revision.id) } },
        headers: etag ? { 'if-match': etag } : {},
        body: {},
      },
    );
    if (error) {
      return setMessage({
        kind: 'error',
        text: response.status === 412 ? t('history.restore.stale') : problemText(error),
      });
    }
    const missing = data.data.missing as { tags?: number[]; websites: number[] };
    const gone = [...(missing.tags ?? []), ...missing.websites];
    setComparison(null);
    await onRestored();
    setMessage({
      kind: 'ok',
      text: gone.length
        ? t('history.restored.missing', { ids: gone.join(', ') })
        : t('history.restored', { time: formatDateTime(revision.created_at) }),
    });
  };

  const pages = Math.max(1, Math.ceil(total / PER_PAGE));
  return (
    <section class="history" aria-labelledby="history-title">
      <h2 id="history-title">
        <button type="button" aria-expanded={open} onClick={() => setOpen(!open)}>
          {t('history.title')}
        </button>
      </h2>
      {open && (
        <div class="history-body">
          {message && (
            <p
              class={`notice ${message.kind === 'error' ? 'error' : ''}`}
              role={message.kind === 'error' ? 'alert' : 'status'}
            >
              {message.text}
            </p>
          )}
          <table class="history-list">
            <caption class="visually-hidden">{t('history.caption')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('history.from')}</th>
                <th scope="col">{t('history.to')}</th>
                <th scope="col">{t('history.when')}</th>
                <th scope="col">{t('history.what')}</th>
                <th scope="col">{t('history.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => {
                const when = formatDateTime(row.created_at);
                return (
                  <tr key={row.id} data-revision={row.id}>
                    <td>
                      <input
                        type="radio"
                        name="history-from"
                        aria-label={t('history.from.label', { time: when })}
                        checked={from === row.id}
                        onChange={() => setFrom(row.id)}
                      />
                    </td>
                    <td>
                      <input
                        type="radio"
                        name="history-to"
                        aria-label={t('history.to.label', { time: when })}
                        checked={to === row.id}
                        onChange={() => setTo(row.id)}
                      />
                    </td>
                    <td>{when}</td>
                    <td>
                      {t(`history.action.${row.action.split('.')[1] ?? 'update'}` as MessageKey)} ·{' '}
                      {t(`post.status.${row.status}` as MessageKey)} · {row.surface}
                    </td>
                    <td>
                      <button type="button" onClick={() => void restore(row)}>
                        {t('history.restore')}
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          <p class="history-pages">
            <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
              {t('posts.previous')}
            </button>{' '}
            {t('posts.page', { page, pages })}{' '}
            <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>
              {t('posts.next')}
            </button>{' '}
            <button
              type="button"
              class="primary"
              disabled={from === null || to === null || from === to}
              onClick={() => void compare()}
            >
              {t('history.compare')}
            </button>
          </p>
          {comparison && (
            <div class="history-compare" role="region" aria-label={t('history.comparison')}>
              {comparison.text.length === 0 && comparison.fields.length === 0 && <p>{t('history.same')}</p>}
              {comparison.text.map((item) => (
                <div key={`${item.field}-${item.locale}`} class="diff">
                  <h3>
                    {item.field} ({item.locale})
                  </h3>
                  <div class="diff-columns">
                    <Side parts={item.parts} side="from" />
                    <Side parts={item.parts} side="to" />
                  </div>
                </div>
              ))}
              {comparison.fields.length > 0 && (
                <table class="diff-fields">
                  <caption>{t('history.fields')}</caption>
                  <thead>
                    <tr>
                      <th scope="col">{t('history.field')}</th>
                      <th scope="col">{formatDateTime(comparison.from.created_at)}</th>
                      <th scope="col">{formatDateTime(comparison.to.created_at)}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {comparison.fields.map((field) => (
                      <tr key={field.field}>
                        <th scope="row">{field.field}</th>
                        <td>{shown(field.from)}</td>
                        <td>{shown(field.to)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </div>
          )}
        </div>
      )}
    </section>
  );
}

/** "Share preview": a link to the post as it is saved (or, `autosave`, as this editor holds it). */
export function SharePreview({ kind = 'post', postId }: { kind?: Kind; postId: number }) {
  const [link, setLink] = useState<{ id: number; url: string; expires_at: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const share = async () => {
    setError(null);
    const { data, error: problem } = await api.POST(
      `${base(kind)}/{id}/preview-links` as '/api/v2/posts/{id}/preview-links',
      {
        params: { path: { id: String(postId) } },
        body: {},
      },
    );
    if (problem) return setError(problemText(problem));
    setLink(data.data);
  };
  const revoke = async () => {
    if (!link) return;
    const { error: problem } = await api.DELETE('/api/v2/preview-links/{id}', {
      params: { path: { id: String(link.id) } },
    });
    if (problem) return setError(problemText(problem));
    setLink(null);
  };
  return (
    <div class="share-preview">
      <button type="button" onClick={() => void share()}>
        {t('share.button')}
      </button>
      {error && (
        <p class="field-error" role="alert">
          {error}
        </p>
      )}
      {link && (
        <div role="status">
          <label for="share-url">{t('share.url', { time: formatDateTime(link.expires_at) })}</label>
          <input id="share-url" readOnly value={link.url} onFocus={(event) => event.currentTarget.select()} />
          <button type="button" onClick={() => void navigator.clipboard?.writeText(link.url)}>
            {t('share.copy')}
          </button>{' '}
          <button type="button" class="danger" onClick={() => void revoke()}>
            {t('share.revoke')}
          </button>
        </div>
      )}
    </div>
  );
}
