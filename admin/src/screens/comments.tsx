// Comments: the moderation queue of the website (held comments first), approved or marked as spam or
// deleted one by one. Only its editors and site admins see it (API v2 answers 403 to anyone else).
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { formatDateTime, t } from '../i18n.js';
import type { MessageKey } from '../i18n.js';

const STATUSES = ['pending', 'approved', 'spam'] as const;
type Status = (typeof STATUSES)[number];
type Action = 'approve' | 'spam' | 'delete';

interface Comment {
  id: number;
  post_title: string;
  author_name: string | null;
  content: string;
  created_at: string;
}

/** The text of a comment's (sanitized) HTML, shown as text. */
function textOf(html: string): string {
  return new DOMParser().parseFromString(html, 'text/html').body.textContent ?? '';
}

export function CommentsScreen() {
  const [status, setStatus] = useState<Status>('pending');
  const [rows, setRows] = useState<Comment[] | null>(null);
  const [notice, setNotice] = useState('');
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    setRows(null);
    void api
      .GET('/api/v2/comments', { params: { query: { filter: { status }, per_page: 100 } } })
      .then(({ data, error: problem }) => {
        if (!live) return;
        if (problem) return setError(problem.detail ?? problem.title);
        setRows(data.data);
      });
    return () => {
      live = false;
    };
  }, [status]);

  const act = async (comment: Comment, action: Action) => {
    const { error: problem } = await api.POST('/api/v2/comments/moderate', {
      body: { ids: [comment.id], action },
    });
    if (problem) return setError(problem.detail ?? problem.title);
    setRows((current) => (current ?? []).filter((row) => row.id !== comment.id));
    setNotice(t(`comments.done.${action}` as MessageKey));
  };

  return (
    <section aria-labelledby="comments-title">
      <h1 id="comments-title">{t('comments.title')}</h1>
      <nav class="tabs" aria-label={t('posts.column.status')}>
        {STATUSES.map((name) => (
          <button
            key={name}
            type="button"
            class={name === status ? 'tab current' : 'tab'}
            aria-pressed={name === status}
            onClick={() => setStatus(name)}
          >
            {t(`comments.status.${name}` as MessageKey)}
          </button>
        ))}
      </nav>
      <p class="notice" role="status">
        {notice}
      </p>
      {error && <p role="alert">{t('app.error', { message: error })}</p>}
      {rows === null ? (
        <p>{t('app.loading')}</p>
      ) : rows.length === 0 ? (
        <p>{t('comments.empty')}</p>
      ) : (
        <ul class="comments">
          {rows.map((comment) => (
            <li key={comment.id} data-comment={comment.id}>
              <p class="meta">
                <strong>{comment.author_name ?? t('comments.anonymous')}</strong> · {comment.post_title} ·{' '}
                <time dateTime={comment.created_at}>{formatDateTime(comment.created_at)}</time>
              </p>
              <p>{textOf(comment.content)}</p>
              <div class="actions">
                {status !== 'approved' && (
                  <button type="button" onClick={() => void act(comment, 'approve')}>
                    {t('comments.approve')}
                  </button>
                )}
                {status !== 'spam' && (
                  <button type="button" onClick={() => void act(comment, 'spam')}>
                    {t('comments.spam')}
                  </button>
                )}
                <button type="button" onClick={() => void act(comment, 'delete')}>
                  {t('comments.delete')}
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
