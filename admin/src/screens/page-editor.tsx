// The page editor: the post editor's rich text and locale tabs for a page's title and content, its
// slug, its template (a view of the site's theme, or the plain page view), draft or published, and
// the websites it is on. Saves go one at a time (editor/save-queue.ts), each with the ETag the one
// before returned (If-Match): a 412 says someone else saved first. A save that gets no answer is said
// and tried again until the server answers. History (compare, restore) and Share preview are the
// post editor's (editor/history.tsx; issue 37), and so is the server autosave: what is typed is kept
// for this user, and reopening the page on any device offers a newer autosave.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.js';
import { LocaleTabs, bcp47, hasText } from '../editor/locale-tabs.js';
import { RichText } from '../editor/rich-text.js';
import { SaveQueue, idempotencyKey } from '../editor/save-queue.js';
import type { SaveTrouble } from '../editor/save-queue.js';
import { SaveTroubleNotice } from '../editor/save-trouble.js';
import { useForm, useResource } from '../hooks.js';
import type { Outcome } from '../hooks.js';
import { formatDateTime, t } from '../i18n.js';
import { Message } from '../widgets.js';
import type { MessageKey } from '../i18n.js';
import { navigate, setLeaveGuard } from '../nav.js';
import { useAbilities, useMe } from '../session.js';
import { useMediaPicker } from './media.js';
import { useSaveShortcut, wordCountText } from '../editor-keys.js';
import { HistoryPanel, SharePreview } from '../editor/history.js';

interface Text {
  title: string;
  content: string;
}
interface Loaded {
  id: number;
  etag: string;
  status: string;
  updated_at: string;
}
type Problem = { title: string; detail?: string; status: number; errors?: Record<string, string[]> };
/** The page as saved, and what the policy lets this user do to it. */
interface Stored {
  loaded: Loaded;
  can: { update: boolean; delete: boolean } | null;
}
interface Fields {
  text: Record<string, Text>;
  slug: string;
  template: string;
  seo: { meta_title: string; meta_description: string };
}

/** An HTML text as one line of plain text (the search-result preview's description). */
const plainText = (html: string) =>
  html
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

export function PageEditor({ id }: { id: number | null }) {
  const me = useMe();
  const locales = me.locales.supported;
  const [locale, setLocale] = useState(me.locales.default);
  // The page's fields: its text per locale, slug, template and, for search engines (issue 34 #20), as
  // the post editor has them (blank: the title and the text).
  const form = useForm<Fields>(
    () => ({
      text: Object.fromEntries(locales.map((code) => [code, { title: '', content: '' }])),
      slug: '',
      template: '',
      seo: { meta_title: '', meta_description: '' },
    }),
    // The form's own send is the first button's save (Ctrl+S's); the other buttons run() theirs.
    () => save(loadedRef.current?.status === 'published' ? undefined : 'draft'),
  );
  const { text, slug, template, seo } = form.values;
  const { dirty } = form;
  const [generation, setGeneration] = useState(0);
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  // The screen's one message: what the last save said, or what went wrong (a load, a save, a delete).
  const message = form.error
    ? { kind: 'error', text: form.error }
    : form.saved
      ? { kind: 'ok', text: form.saved }
      : null;
  const fail = (text: string) => {
    form.setSaved('');
    form.setError(text);
  };
  /** This user's server autosave, newer than the saved page: offered back (issue 37). */
  const [offered, setOffered] = useState<Record<string, Text> | null>(null);
  // The version the next save builds on: set with the state, never from a render.
  const loadedRef = useRef<Loaded | null>(null);
  const setLoaded = (next: Loaded) => {
    loadedRef.current = next;
    stored.setData((current) => ({ loaded: next, can: current?.can ?? null }));
  };
  const [saving, setSaving] = useState(false);
  const [trouble, setTrouble] = useState<SaveTrouble | null>(null);
  const createKey = useRef(idempotencyKey());
  const queueRef = useRef<SaveQueue | null>(null);
  queueRef.current ??= new SaveQueue({ onBusy: setSaving, onTrouble: setTrouble });
  const queue = queueRef.current;
  useEffect(() => () => queue.close(), []);
  // Images from the media library, as in the post editor (issue 34 #20), for those who may use it.
  const can = useAbilities();
  const { pickImage, dialog: mediaDialog } = useMediaPicker();
  // The page as saved, and what the policy lets this user do to it (API v2's `can`; issue 34 #19).
  // It loads once (a new page has nothing to load); a restored version is loaded by `load` itself.
  const stored = useResource<Stored>(() => (id === null ? Promise.resolve({}) : load(id)), [id]);
  const loaded = stored.data?.loaded ?? null;
  const pageCan = stored.data?.can ?? null;
  const mayUpdate = pageCan?.update ?? true;
  // Ctrl+S saves (issue 34 #20): as the first button does.
  useSaveShortcut(mayUpdate ? () => void form.submit() : null);

  const load = async (pageId: number) => {
    const answer = await api
      .GET('/api/v2/pages/{id}', { params: { path: { id: String(pageId) } } })
      .catch(() => null);
    if (!answer) {
      fail(t('editor.network.load'));
      return { error: { title: t('editor.network.load') } };
    }
    const { data, error, response } = answer;
    if (error) {
      fail(error.detail ?? error.title);
      return { error };
    }
    const page = data.data;
    const next: Record<string, Text> = {};
    for (const code of locales) {
      const base = code === me.locales.default;
      next[code] = {
        title: page.translations.title?.[code] ?? (base ? page.title : ''),
        content: page.translations.content?.[code] ?? (base ? (page.content ?? '') : ''),
      };
    }
    form.reset({
      text: next,
      slug: page.slug,
      template: page.type === 'template' ? (page.template ?? '') : '',
      seo: { meta_title: page.meta_title ?? '', meta_description: page.meta_description ?? '' },
    });
    const loaded: Loaded = {
      id: page.id,
      etag: response.headers.get('etag') ?? '',
      status: page.status,
      updated_at: page.updated_at,
    };
    const state = { loaded, can: page.can ?? null };
    // Shown with the fields (a restore's load is called by the history, not through `stored`).
    loadedRef.current = loaded;
    stored.setData(state);
    setGeneration((n) => n + 1);
    const base = next[me.locales.default];
    // A page the user may not change has no autosave to offer (and asking would be refused).
    if (!(page.can && !page.can.update)) {
      void api
        .GET('/api/v2/pages/{id}/autosave', { params: { path: { id: String(pageId) } } })
        .then(({ data: found }) => {
          const autosave = found?.data;
          if (!autosave?.newer || !base) return;
          // The autosave's text over the saved one, in every locale it kept.
          const overlay = (code: string, kept: { title?: string; content?: string }) => {
            const saved = next[code] ?? { title: '', content: '' };
            return { title: kept.title ?? saved.title, content: kept.content ?? saved.content };
          };
          const merged = { ...next, [me.locales.default]: overlay(me.locales.default, autosave) };
          for (const [code, kept] of Object.entries(autosave.translations ?? {})) {
            if (code in next) merged[code] = overlay(code, kept);
          }
          if (JSON.stringify(merged) !== JSON.stringify(next)) setOffered(merged);
        })
        .catch(() => undefined);
    }
    return { data: state };
  };
  // The server's autosave of a page that exists: this user's one copy, never what readers see.
  useEffect(() => {
    const base = loadedRef.current;
    const typed = text[me.locales.default];
    if (!dirty || !base || !typed) return;
    const timer = setTimeout(() => {
      const kept = (each: Text) => ({ title: each.title.slice(0, 255), content: each.content });
      const translations = Object.fromEntries(
        Object.entries(text)
          .filter(([code]) => code !== me.locales.default)
          .map(([code, each]) => [code, kept(each)]),
      );
      void api
        .PUT('/api/v2/pages/{id}/autosave', {
          params: { path: { id: String(base.id) } },
          body: { ...kept(typed), translations, base_version: base.updated_at },
        })
        .catch(() => undefined);
    }, 1500);
    return () => clearTimeout(timer);
  }, [text, dirty, loaded?.id]);
  useEffect(() => {
    setLeaveGuard(() => dirty);
    return () => setLeaveGuard(null);
  }, [dirty]);

  const change = (code: string, field: keyof Text, value: string) =>
    form.set((current) => ({
      text: { ...current.text, [code]: { ...current.text[code], [field]: value } },
    }));

  const save = async (status?: 'draft' | 'published'): Promise<Outcome> => {
    form.setSaved('');
    const map = (field: keyof Text) =>
      Object.fromEntries(locales.map((code) => [code, text[code]?.[field] ?? '']));
    const body = {
      title: map('title'),
      content: map('content'),
      ...(slug.trim() ? { slug: slug.trim() } : {}),
      type: template.trim() ? ('template' as const) : ('plain' as const),
      template: template.trim() || null,
      meta_title: seo.meta_title.trim() || null,
      meta_description: seo.meta_description.trim() || null,
      ...(status ? { status } : {}),
    };
    // Sent when the saves queued before have their answers, with the ETag the last one returned; a
    // create's retries send the same key (one page, not two).
    const sent = await queue.enqueue(
      async () => {
        const base = loadedRef.current;
        const answer = base
          ? await api.PATCH('/api/v2/pages/{id}', {
              params: { path: { id: String(base.id) } },
              headers: { 'if-match': base.etag },
              body,
            })
          : await api.POST('/api/v2/pages', {
              headers: { 'idempotency-key': createKey.current },
              body: { status: 'draft', ...body },
            });
        return { answer, base, response: answer.response };
      },
      (result) => {
        // A create answered (made, or refused): the next create is another request.
        if (!result.base) createKey.current = idempotencyKey();
        if (!result.answer.error) {
          const page = result.answer.data.data;
          setLoaded({
            id: page.id,
            etag: result.answer.response.headers.get('etag') ?? '',
            status: page.status,
            updated_at: page.updated_at,
          });
        }
        return result;
      },
    );
    if (!sent) return;
    const { answer, base } = sent;
    if (answer.error) {
      const problem = answer.error as Problem;
      setErrors(problem.errors ?? {});
      return { error: problem.status === 412 ? t('pages.conflict') : (problem.detail ?? problem.title) };
    }
    const page = answer.data.data;
    // What was typed meanwhile stays (as the address the server chose).
    form.reset((current) => ({ ...current, slug: page.slug }));
    setErrors({});
    if (!base)
      // The address names the new item; the editor stays as it is (no remount mid-typing).
      history.replaceState(null, '', `/admin/pages/${page.id}`);
    return t(status === 'published' ? 'pages.done.published' : 'editor.done.saved');
  };

  const remove = async (force = false) => {
    if (!loaded || (!force && !confirm(t('pages.delete.confirm')))) return;
    const answer = await api
      .DELETE('/api/v2/pages/{id}', {
        params: { path: { id: String(loaded.id) }, query: force ? { force: 'true' } : {} },
      })
      .catch(() => null);
    if (!answer) return fail(t('editor.network'));
    const { error } = answer;
    if (error?.status === 409 && confirm(`${error.detail ?? error.title}\n\n${t('pages.delete.force')}`)) {
      return remove(true);
    }
    if (error) return fail(error.detail ?? error.title);
    form.reset((current) => current);
    setLeaveGuard(null);
    navigate('/admin/pages');
  };

  // The first load (the editor of a page that exists waits for it; a restore's load does not).
  if (id !== null && stored.loading && loaded === null) return <p aria-live="polite">{t('app.loading')}</p>;
  const current = text[locale] ?? { title: '', content: '' };
  const missing = locales.filter((code) => !text[code]?.title.trim() || !hasText(text[code]?.content ?? ''));
  const status = loaded?.status ?? 'new';
  const baseTitle = (text[me.locales.default]?.title ?? '').trim();
  const baseContent = text[me.locales.default]?.content ?? '';
  const fieldError = (name: string) =>
    errors[name]?.length ? (
      <p id={`error-${name}`} class="field-error">
        {errors[name].join(' ')}
      </p>
    ) : null;

  return (
    <section aria-labelledby="page-editor-title" class="editor">
      {mediaDialog}
      <div class="screen-head">
        <h1 id="page-editor-title">{loaded ? t('pages.edit') : t('pages.new')}</h1>
        <p class="save-state" aria-live="polite">
          <span class={`status status-${status}`}>{t(`post.status.${status}` as MessageKey)}</span>{' '}
          {trouble
            ? t('editor.trouble.state')
            : saving
              ? t('editor.saving')
              : dirty
                ? t('editor.unsaved')
                : loaded
                  ? t('editor.saved', { time: formatDateTime(loaded.updated_at) })
                  : ''}
        </p>
      </div>
      {offered && (
        <div class="notice" role="status">
          <p>{t('editor.restore.server')}</p>
          <button
            type="button"
            onClick={() => {
              form.set({ text: offered });
              setOffered(null);
              setGeneration((n) => n + 1);
            }}
          >
            {t('editor.restore.yes')}
          </button>{' '}
          <button
            type="button"
            onClick={() => {
              setOffered(null);
              if (loaded) {
                void api
                  .DELETE('/api/v2/pages/{id}/autosave', { params: { path: { id: String(loaded.id) } } })
                  .catch(() => undefined);
              }
            }}
          >
            {t('editor.restore.no')}
          </button>
        </div>
      )}
      <Message message={message} />
      <SaveTroubleNotice trouble={trouble} onRetry={() => queue.retryNow()} />
      {!mayUpdate && (
        <p class="notice" role="status">
          {t('pages.readonly')}
        </p>
      )}
      <div class="editor-grid">
        <div class="editor-main">
          <LocaleTabs locales={locales} current={locale} missing={missing} onChoose={setLocale}>
            <label for="page-title">{t('editor.title')}</label>
            <input
              id="page-title"
              class="title-input"
              lang={bcp47(locale)}
              value={current.title}
              maxLength={255}
              onInput={(event) => change(locale, 'title', event.currentTarget.value)}
              {...(errors.title ? { 'aria-invalid': true, 'aria-describedby': 'error-title' } : {})}
            />
            {fieldError('title')}
            <p id="page-content-label" class="label">
              {t('editor.content')}
            </p>
            <RichText
              key={`${generation}-${locale}`}
              initial={current.content}
              labelledBy="page-content-label"
              lang={bcp47(locale)}
              onChange={(html) => change(locale, 'content', html)}
              {...(can.upload_media ? { pickImage } : {})}
            />
            <p class="word-count help">
              {wordCountText(current.content)} · {t('editor.shortcuts')}
            </p>
          </LocaleTabs>
        </div>
        <aside class="editor-side" aria-label={t('pages.settings')}>
          <fieldset class="publish">
            <legend>{t('editor.publishing')}</legend>
            {mayUpdate && (
              <div class="actions">
                <button
                  type="button"
                  onClick={() => void form.run(() => save(status === 'published' ? undefined : 'draft'))}
                >
                  {status === 'published' ? t('editor.update') : t('editor.save_draft')}
                </button>
                {status !== 'published' && (
                  <button
                    type="button"
                    class="primary"
                    onClick={() => void form.run(() => save('published'))}
                  >
                    {t('editor.publish')}
                  </button>
                )}
                {status === 'published' && (
                  <button type="button" onClick={() => void form.run(() => save('draft'))}>
                    {t('editor.unpublish')}
                  </button>
                )}
              </div>
            )}
            {loaded && mayUpdate && (
              <p>
                <a class="button" href={`/page/preview/${loaded.id}`} target="_blank" rel="noopener">
                  {t('editor.preview')}
                </a>
                {dirty && <span class="help"> {t('editor.preview.saved_only')}</span>}
              </p>
            )}
            {loaded && mayUpdate && loaded.status !== 'published' && (
              <SharePreview kind="page" postId={loaded.id} />
            )}
            {loaded && (pageCan?.delete ?? true) && (
              <button type="button" class="danger" onClick={() => void remove()}>
                {t('pages.delete')}
              </button>
            )}
          </fieldset>
          <fieldset>
            <legend>{t('editor.address')}</legend>
            <label for="page-slug">{t('editor.slug')}</label>
            <input
              id="page-slug"
              value={slug}
              maxLength={190}
              onInput={(event) => form.set({ slug: event.currentTarget.value })}
            />
            <p class="help">{t('pages.slug.help')}</p>
            {fieldError('slug')}
          </fieldset>
          <fieldset>
            <legend>{t('pages.template')}</legend>
            <label for="page-template">{t('pages.template.name')}</label>
            <input
              id="page-template"
              value={template}
              maxLength={100}
              list="page-templates"
              aria-describedby="page-template-help"
              onInput={(event) => form.set({ template: event.currentTarget.value })}
            />
            <datalist id="page-templates">
              <option value="full-width" />
            </datalist>
            <p id="page-template-help" class="help">
              {t('pages.template.help')}
            </p>
            {fieldError('template')}
          </fieldset>
          <fieldset>
            <legend>{t('editor.seo')}</legend>
            <label for="page-meta-title">{t('editor.meta_title')}</label>
            <input
              id="page-meta-title"
              value={seo.meta_title}
              maxLength={255}
              onInput={(event) => form.set({ seo: { ...seo, meta_title: event.currentTarget.value } })}
            />
            {fieldError('meta_title')}
            <label for="page-meta-description">{t('editor.meta_description')}</label>
            <textarea
              id="page-meta-description"
              rows={3}
              maxLength={500}
              value={seo.meta_description}
              onInput={(event) => form.set({ seo: { ...seo, meta_description: event.currentTarget.value } })}
            />
            {fieldError('meta_description')}
            <div class="serp" aria-label={t('editor.serp')} role="group">
              <p class="serp-url">{`${me.website?.domain ?? ''} › page › ${slug || '…'}`}</p>
              <p class="serp-title">
                {(seo.meta_title.trim() || baseTitle || t('posts.untitled')).slice(0, 70)}
              </p>
              <p class="serp-description">
                {(seo.meta_description.trim() || plainText(baseContent)).slice(0, 160)}
              </p>
            </div>
          </fieldset>
        </aside>
      </div>
      {loaded && mayUpdate && (
        <HistoryPanel
          kind="page"
          postId={loaded.id}
          etag={loaded.etag}
          version={loaded.updated_at}
          onRestored={async () => {
            await load(loaded.id);
          }}
        />
      )}
    </section>
  );
}
