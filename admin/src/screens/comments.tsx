// Comments: the moderation queue of the website in tabs (waiting, reported, spam, approved), each
// comment approved, marked as spam, deleted or answered, one at a time or the chosen ones in one
// call; below, the website's moderation settings (which new comments wait, the held words). Only its
// editors and site admins see it (API v2 answers 403 to anyone else); the settings are changed by
// whoever manages the website.
import { useState } from 'preact/hooks';
import type { components } from '../../../clients/typescript/schema.js';
import { api } from '../api.js';
import { useForm, useResource } from '../hooks.js';
import { formatDateTime, t } from '../i18n.js';
import type { MessageKey } from '../i18n.js';
import { useAbilities } from '../session.js';
import { Notices } from '../widgets.js';

const TABS = ['pending', 'reported', 'spam', 'approved'] as const;
type Tab = (typeof TABS)[number];
type Action = 'approve' | 'spam' | 'delete';
type Comment = components['schemas']['Comment'];
type Settings = components['schemas']['CommentSettings']['data'];
type Mode = Settings['mode'];
const MODES: Mode[] = ['all', 'first', 'anonymous', 'none'];

/** The text of a comment's (sanitized) HTML, shown as text. */
function textOf(html: string): string {
  return new DOMParser().parseFromString(html, 'text/html').body.textContent ?? '';
}

/** The start of a comment, as text (what a reply answers). */
function excerptOf(html: string): string {
  const text = textOf(html).replace(/\s+/g, ' ').trim();
  return text.length > 140 ? `${text.slice(0, 139)}…` : text;
}

const problemText = (problem: { detail?: string | null; title: string }) =>
  t('app.error', { message: problem.detail ?? problem.title });

function ReplyForm({
  comment,
  onDone,
  onCancel,
}: {
  comment: Comment;
  onDone: (message: string) => void;
  onCancel: () => void;
}) {
  const [content, setContent] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const id = `reply-${comment.id}`;
  const send = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    const { error: problem } = await api.POST('/api/v2/comments/{id}/replies', {
      params: { path: { id: comment.id } },
      body: { content },
    });
    setBusy(false);
    if (problem) return setError(problem.errors?.content?.[0] ?? problemText(problem));
    onDone(t('comments.reply.done'));
  };
  return (
    <form class="reply-form" onSubmit={(event) => void send(event)}>
      <label for={id}>
        {t('comments.reply.label', { name: comment.author_name ?? t('comments.anonymous') })}
      </label>
      {comment.status === 'pending' && <p class="hint">{t('comments.reply.approves')}</p>}
      <textarea
        id={id}
        required
        maxLength={5000}
        value={content}
        aria-invalid={error ? true : undefined}
        onInput={(event) => setContent(event.currentTarget.value)}
      />
      {error && (
        <p class="notice error" role="alert">
          {error}
        </p>
      )}
      <div class="actions">
        <button type="submit" disabled={busy}>
          {t('comments.reply.send')}
        </button>
        <button type="button" onClick={onCancel}>
          {t('comments.reply.cancel')}
        </button>
      </div>
    </form>
  );
}

function ModerationSettings() {
  const can = useAbilities();
  const [inherited, setInherited] = useState<Mode>('anonymous');
  const form = useForm<{ mode: Mode | 'inherit'; words: string }>(
    { mode: 'inherit', words: '' },
    async ({ mode, words }) => {
      form.setSaved('');
      const { data, error: problem } = await api.PUT('/api/v2/comments/settings', {
        body: {
          mode: mode === 'inherit' ? null : mode,
          held_words: words
            .split('\n')
            .map((word) => word.trim())
            .filter((word) => word !== ''),
        },
      });
      if (problem) {
        const fields = Object.entries(problem.errors ?? {}).map(
          ([field, messages]) => `${field}: ${messages.join(' ')}`,
        );
        return { error: fields.length > 0 ? fields.join(' ') : problemText(problem) };
      }
      show(data.data);
      return t('comments.settings.saved');
    },
  );
  const { mode, words } = form.values;
  const stored = useResource(
    () =>
      api.GET('/api/v2/comments/settings').then(({ data, error: problem }) => {
        if (data) show(data.data);
        return { data: data?.data, error: problem };
      }),
    [],
  );
  const settings = stored.data;
  const notice = form.saved;
  const error = form.error || (stored.error ? problemText(stored.error) : null);

  /** The settings as the server has them: the form shows them. */
  const show = (loaded: Settings) => {
    stored.setData(loaded);
    if (loaded.inherited) setInherited(loaded.mode);
    form.reset({ mode: loaded.inherited ? 'inherit' : loaded.mode, words: loaded.held_words.join('\n') });
  };

  if (!settings) return error ? <Notices notice="" error={error} /> : null;
  const readOnly = !can.manage_website;
  return (
    <section class="moderation-settings" aria-labelledby="moderation-settings-title">
      <h2 id="moderation-settings-title">{t('comments.settings')}</h2>
      {readOnly && <p>{t('comments.settings.readonly')}</p>}
      <form onSubmit={(event) => void form.submit(event)}>
        <fieldset disabled={readOnly}>
          <legend>{t('comments.settings.mode')}</legend>
          {(['inherit', ...MODES] as const).map((value) => (
            <label key={value}>
              <input
                type="radio"
                name="moderation-mode"
                value={value}
                checked={mode === value}
                onChange={() => form.set({ mode: value })}
              />{' '}
              {value === 'inherit'
                ? t('comments.settings.mode.inherit', {
                    mode: t(`comments.settings.mode.${inherited}` as MessageKey),
                  })
                : t(`comments.settings.mode.${value}` as MessageKey)}
            </label>
          ))}
        </fieldset>
        <label for="held-words">{t('comments.settings.words')}</label>
        <p id="held-words-help" class="hint">
          {t('comments.settings.words.help')}
        </p>
        <textarea
          id="held-words"
          aria-describedby="held-words-help"
          readOnly={readOnly}
          value={words}
          onInput={(event) => form.set({ words: event.currentTarget.value })}
        />
        {!readOnly && <button type="submit">{t('comments.settings.save')}</button>}
      </form>
      <Notices notice={notice} error={error} />
    </section>
  );
}

export function CommentsScreen() {
  const [tab, setTab] = useState<Tab>('pending');
  const [chosen, setChosen] = useState<Set<number>>(new Set());
  const [replying, setReplying] = useState<number | null>(null);
  const [notice, setNotice] = useState('');
  const [actionError, setError] = useState<string | null>(null);

  const list = useResource(() => {
    // Each load starts with nothing chosen and no reply open.
    setChosen(new Set());
    setReplying(null);
    const filter = tab === 'reported' ? { reported: 'true' as const } : { status: tab };
    return api.GET('/api/v2/comments', { params: { query: { filter, per_page: 100 } } });
  }, [tab]);
  // Each load shows "Loading" instead of the rows.
  const rows: Comment[] | null = list.loading || list.error ? null : (list.data?.data ?? null);
  // How many comments each tab holds (issue 34 #20), with every answer of the list.
  const counts: Partial<Record<Tab, number>> = list.data?.meta.counts ?? {};
  const error = actionError || (list.error ? problemText(list.error) : null);

  const act = async (ids: number[], action: Action) => {
    if (ids.length === 0) return;
    if (
      action === 'delete' &&
      ids.length > 1 &&
      !confirm(t('comments.bulk.delete.confirm', { n: ids.length }))
    ) {
      return;
    }
    setError(null);
    const { data, error: problem } = await api.POST('/api/v2/comments/moderate', { body: { ids, action } });
    if (problem) return setError(problemText(problem));
    const done = new Set(data.data.ids);
    setNotice(
      ids.length === 1
        ? t(`comments.done.${action}` as MessageKey)
        : t(`comments.bulk.done.${action}` as MessageKey, { n: done.size }),
    );
    setChosen(new Set());
    // What stays in this tab after the action: approving keeps a comment under "approved" only.
    list.reload();
  };

  const ids = (rows ?? []).map((row) => row.id);
  const allChosen = ids.length > 0 && ids.every((id) => chosen.has(id));
  const toggle = (id: number, on: boolean) =>
    setChosen((current) => {
      const next = new Set(current);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  const offers = (action: Action) =>
    action === 'delete' || (action === 'approve' ? tab !== 'approved' : tab !== 'spam');

  return (
    <section aria-labelledby="comments-title">
      <h1 id="comments-title">{t('comments.title')}</h1>
      <nav class="tabs" aria-label={t('posts.column.status')}>
        {TABS.map((name) => (
          <button
            key={name}
            type="button"
            class={name === tab ? 'tab current' : 'tab'}
            aria-pressed={name === tab}
            onClick={() => setTab(name)}
          >
            {t(`comments.status.${name}` as MessageKey)} <span class="count">{counts[name] ?? ''}</span>
          </button>
        ))}
      </nav>
      <Notices notice={notice} error={error} />
      {rows === null ? (
        <p>{t('app.loading')}</p>
      ) : rows.length === 0 ? (
        <p>{t('comments.empty')}</p>
      ) : (
        <>
          <div class="comments-bulk" role="group" aria-label={t('comments.bulk')}>
            <label>
              <input
                type="checkbox"
                checked={allChosen}
                onChange={(event) => setChosen(event.currentTarget.checked ? new Set(ids) : new Set())}
              />{' '}
              {t('comments.choose.all')}
            </label>
            <span aria-live="polite">{t('comments.bulk.chosen', { n: chosen.size })}</span>
            {(['approve', 'spam', 'delete'] as const).filter(offers).map((action) => (
              <button
                key={action}
                type="button"
                data-bulk={action}
                aria-disabled={chosen.size === 0}
                onClick={() => void act([...chosen], action)}
              >
                {t(`comments.${action}` as MessageKey)} ({chosen.size})
              </button>
            ))}
          </div>
          <ul class="comments">
            {rows.map((comment) => {
              const name = comment.author_name ?? t('comments.anonymous');
              return (
                <li key={comment.id} class="comment-row" data-comment={comment.id}>
                  <input
                    type="checkbox"
                    aria-label={t('comments.choose.one', { name })}
                    checked={chosen.has(comment.id)}
                    onChange={(event) => toggle(comment.id, event.currentTarget.checked)}
                  />
                  <div class="body">
                    <p class="meta">
                      <strong>{name}</strong> · {t('comments.post', { title: comment.post_title })} ·{' '}
                      <time dateTime={comment.created_at}>{formatDateTime(comment.created_at)}</time>
                      {comment.reports > 0 && (
                        <>
                          {' '}
                          · <span class="reports">{t('comments.reports', { n: comment.reports })}</span>
                        </>
                      )}
                    </p>
                    {comment.parent && (
                      <blockquote class="reply-to">
                        {t('comments.reply_to', {
                          name: comment.parent.author_name ?? t('comments.anonymous'),
                        })}{' '}
                        {excerptOf(comment.parent.content)}
                      </blockquote>
                    )}
                    <p>{textOf(comment.content)}</p>
                    <div class="actions">
                      {offers('approve') && (
                        <button type="button" onClick={() => void act([comment.id], 'approve')}>
                          {t('comments.approve')}
                        </button>
                      )}
                      {offers('spam') && (
                        <button type="button" onClick={() => void act([comment.id], 'spam')}>
                          {t('comments.spam')}
                        </button>
                      )}
                      <button type="button" onClick={() => void act([comment.id], 'delete')}>
                        {t('comments.delete')}
                      </button>
                      {comment.status !== 'spam' && (
                        <button
                          type="button"
                          aria-expanded={replying === comment.id}
                          onClick={() => setReplying(replying === comment.id ? null : comment.id)}
                        >
                          {t('comments.reply')}
                        </button>
                      )}
                    </div>
                    {replying === comment.id && (
                      <ReplyForm
                        comment={comment}
                        onCancel={() => setReplying(null)}
                        onDone={(message) => {
                          setNotice(message);
                          setReplying(null);
                          list.reload();
                        }}
                      />
                    )}
                  </div>
                </li>
              );
            })}
          </ul>
        </>
      )}
      <ModerationSettings />
    </section>
  );
}
