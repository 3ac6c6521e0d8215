// The post editor: every translatable field in one tab per locale (tabs show which locales are still
// missing), the slug (from the title until edited, checked for clashes as you type), excerpt,
// thumbnail, tags and categories (created on the fly), SEO fields with a search-result preview, the
// websites the post is on, and the actions the policy allows here: save a draft, publish now or at a
// time, submit for review, approve or send back. Drafts save themselves a few seconds after a change;
// every post keeps a copy of unsaved work in this browser. Writes carry the ETag read (If-Match): when
// someone else saved meanwhile, the API answers 412 and the editor says so instead of overwriting.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api } from '../api.js';
import { LocaleTabs, bcp47, hasText } from '../editor/locale-tabs.js';
import { RichText } from '../editor/rich-text.js';
import { formatDateTime, t } from '../i18n.js';
import { Message } from '../widgets.js';
import type { MessageKey } from '../i18n.js';
import { navigate, setLeaveGuard } from '../nav.js';
import { useAbilities, useMe } from '../session.js';
import { useSaveShortcut, wordCountText } from '../editor-keys.js';
import { MediaPicker } from './media.js';
import type { MediaItem } from '../media-upload.js';
import { TagPicker } from './tag-picker.js';
import type { TagOption } from './tag-picker.js';

interface LocaleText {
  title: string;
  excerpt: string;
  content: string;
}

interface Form {
  text: Record<string, LocaleText>;
  slug: string;
  thumbnail_url: string;
  tags: TagOption[];
  categories: TagOption[];
  meta_title: string;
  meta_description: string;
  website_ids: number[];
  /** A `datetime-local` value in the editor's time zone ('' : now). */
  publish_at: string;
}

interface Loaded {
  id: number;
  status: string;
  etag: string;
  updated_at: string;
  published_at: string | null;
  author_id: number | null;
}

type Problem = { title: string; detail?: string; status: number; errors?: Record<string, string[]> };

const AUTOSAVE_MS = 4000;
const copyKey = (id: number | null) => `folio-admin:post:${id ?? 'new'}`;

/** `2026-11-25T21:30` in the browser's time zone, from an ISO time. */
function toLocalInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

function emptyForm(locales: string[], websiteId: number | null): Form {
  return {
    text: Object.fromEntries(locales.map((locale) => [locale, { title: '', excerpt: '', content: '' }])),
    slug: '',
    thumbnail_url: '',
    tags: [],
    categories: [],
    meta_title: '',
    meta_description: '',
    website_ids: websiteId ? [websiteId] : [],
    publish_at: '',
  };
}

/** A locale has what a reader needs: a title and some content. */
const complete = (text: LocaleText | undefined) =>
  !!text && text.title.trim() !== '' && hasText(text.content);

export function PostEditor({ id }: { id: number | null }) {
  const me = useMe();
  const can = useAbilities();
  const locales = me.locales.supported;
  const [locale, setLocale] = useState(me.locales.default);
  const [form, setForm] = useState<Form>(() => emptyForm(locales, me.website?.id ?? null));
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [loading, setLoading] = useState(id !== null);
  const [dirty, setDirty] = useState(false);
  const [slugTouched, setSlugTouched] = useState(id !== null);
  const [slugState, setSlugState] = useState<{ available: boolean; suggestion: string } | null>(null);
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const [conflict, setConflict] = useState(false);
  const [saving, setSaving] = useState(false);
  const [lastSaved, setLastSaved] = useState<string | null>(null);
  const [restorable, setRestorable] = useState<Form | null>(null);
  const [websites, setWebsites] = useState<Array<{ id: number; name: string }>>([]);
  const [note, setNote] = useState('');
  // What the policy lets this user do to the loaded post (API v2's `can`; issue 34 #19).
  const [postCan, setPostCan] = useState<{ update: boolean; publish: boolean; delete: boolean } | null>(null);
  // The media library as a dialog: what it resolves with goes into the content or the thumbnail.
  const [picking, setPicking] = useState<((item: MediaItem | null) => void) | null>(null);
  const pick = () => new Promise<MediaItem | null>((resolve) => setPicking(() => resolve));
  const pickImage = async () => {
    const item = await pick();
    return item && { src: item.url, alt: item.alt ?? '' };
  };
  // Editors are recreated (keyed) when a post loads or a locale's text is replaced from outside.
  const [generation, setGeneration] = useState(0);
  const formRef = useRef(form);
  formRef.current = form;
  const loadedRef = useRef(loaded);
  loadedRef.current = loaded;

  // ---- Loading -----------------------------------------------------------------------------------
  const load = async (postId: number) => {
    const response = await api.GET('/api/v2/posts/{id}', {
      params: { path: { id: String(postId) }, query: { include: 'tags,categories' } },
    });
    if (response.error || !response.data) {
      setMessage({ kind: 'error', text: response.error?.detail ?? response.error?.title ?? '' });
      setLoading(false);
      return;
    }
    const post = response.data.data;
    setPostCan(post.can ?? null);
    const translations = post.translations ?? {};
    const text: Record<string, LocaleText> = {};
    for (const code of locales) {
      const base = code === me.locales.default;
      text[code] = {
        title: translations.title?.[code] ?? (base ? (post.title ?? '') : ''),
        excerpt: translations.excerpt?.[code] ?? (base ? (post.excerpt ?? '') : ''),
        content: translations.content?.[code] ?? (base ? (post.content ?? '') : ''),
      };
    }
    const next: Form = {
      text,
      slug: post.slug ?? '',
      thumbnail_url: post.thumbnail ?? '',
      tags: (post.tags ?? []).filter((tag) => tag.type !== 'post_category'),
      categories: post.categories ?? [],
      meta_title: post.meta_title ?? '',
      meta_description: post.meta_description ?? '',
      website_ids: post.website_ids ?? [],
      publish_at: post.status === 'scheduled' ? toLocalInput(post.published_at) : '',
    };
    setForm(next);
    setLoaded({
      id: post.id!,
      status: post.status!,
      etag: response.response.headers.get('etag') ?? '',
      updated_at: post.updated_at!,
      published_at: post.published_at ?? null,
      author_id: post.author_id ?? null,
    });
    setDirty(false);
    setConflict(false);
    setGeneration((n) => n + 1);
    setLoading(false);
    // Unsaved work from an earlier visit, made on this very version of the post.
    try {
      const copy = JSON.parse(localStorage.getItem(copyKey(postId)) ?? 'null') as {
        base: string;
        form: Form;
      } | null;
      if (copy && copy.base === post.updated_at && JSON.stringify(copy.form) !== JSON.stringify(next)) {
        setRestorable(copy.form);
      }
    } catch {
      /* no copy */
    }
  };

  useEffect(() => {
    // A draft saved for the first time gets its address: the editor keeps working on what it has.
    if (id !== null && id !== loadedRef.current?.id) void load(id);
    void api.GET('/api/v2/websites', { params: { query: { per_page: 100 } } }).then(({ data }) => {
      const managed = (data?.data ?? []).map((site) => ({
        id: site.id,
        name: site.fields.site_name ?? site.domain,
      }));
      const here = me.website;
      if (here && !managed.some((site) => site.id === here.id))
        managed.unshift({ id: here.id, name: here.name });
      setWebsites(managed);
    });
  }, [id]);

  // ---- Unsaved work: a leave guard, and a copy in this browser ---------------------------------
  useEffect(() => {
    setLeaveGuard(() => dirty);
    return () => setLeaveGuard(null);
  }, [dirty]);
  useEffect(() => {
    if (!dirty) return;
    const timer = setTimeout(() => {
      localStorage.setItem(
        copyKey(loaded?.id ?? null),
        JSON.stringify({ base: loaded?.updated_at ?? null, form }),
      );
    }, 500);
    return () => clearTimeout(timer);
  }, [form, dirty]);

  const change = (patch: Partial<Form>) => {
    setForm((current) => ({ ...current, ...patch }));
    setDirty(true);
  };
  const changeText = (code: string, field: keyof LocaleText, value: string) => {
    setForm((current) => {
      const text = { ...current.text, [code]: { ...current.text[code], [field]: value } };
      return { ...current, text };
    });
    setDirty(true);
  };

  // ---- The slug: from the title until edited; checked as it changes -------------------------------
  const baseTitle = form.text[me.locales.default]?.title ?? '';
  const slugSource = slugTouched ? form.slug : baseTitle;
  useEffect(() => {
    if (slugSource.trim() === '') return setSlugState(null);
    const timer = setTimeout(() => {
      void api
        .GET('/api/v2/posts/slug-check', {
          params: {
            query: { slug: slugSource.slice(0, 190), ...(loaded ? { post_id: String(loaded.id) } : {}) },
          },
        })
        .then(({ data }) => {
          if (!data) return;
          setSlugState(data.data);
          if (!slugTouched) setForm((current) => ({ ...current, slug: data.data.suggestion }));
        });
    }, 300);
    return () => clearTimeout(timer);
  }, [slugSource, slugTouched, loaded?.id]);

  // ---- Saving -------------------------------------------------------------------------------------
  const bodyOf = (current: Form, status?: string) => {
    const map = (field: keyof LocaleText) =>
      Object.fromEntries(locales.map((code) => [code, current.text[code]?.[field] ?? '']));
    const scheduled = current.publish_at !== '' ? new Date(current.publish_at).toISOString() : null;
    return {
      title: map('title'),
      content: map('content'),
      excerpt: map('excerpt'),
      ...(current.slug.trim() ? { slug: current.slug.trim() } : {}),
      thumbnail_url: current.thumbnail_url.trim() || null,
      tags: current.tags.map((tag) => tag.id),
      categories: current.categories.map((tag) => tag.id),
      meta_title: current.meta_title.trim() || null,
      meta_description: current.meta_description.trim() || null,
      website_id: current.website_ids,
      ...(status ? { status } : {}),
      ...(status === 'scheduled'
        ? { published_at: scheduled }
        : status === 'published'
          ? { published_at: null }
          : {}),
    };
  };

  /** Saves the form (with `status` when given); true when saved. `quiet`: the autosave. */
  const save = async (status?: string, quiet = false): Promise<Loaded | null> => {
    if (saving) return null;
    setSaving(true);
    const snapshot = formRef.current;
    const body = bodyOf(snapshot, status);
    const base = loadedRef.current;
    const response = base
      ? await api.PATCH('/api/v2/posts/{id}', {
          params: { path: { id: String(base.id) } },
          headers: { 'if-match': base.etag },
          body: body as never,
        })
      : await api.POST('/api/v2/posts', { body: { status: 'draft', ...body } as never });
    setSaving(false);
    if (response.error) {
      const problem = response.error as Problem;
      if (problem.status === 412) {
        setConflict(true);
        return null;
      }
      if (!quiet) {
        setErrors(problem.errors ?? {});
        setMessage({ kind: 'error', text: problem.detail ?? problem.title });
      }
      return null;
    }
    const post = response.data.data;
    const saved: Loaded = {
      id: post.id!,
      status: post.status!,
      etag: response.response.headers.get('etag') ?? '',
      updated_at: post.updated_at!,
      published_at: post.published_at ?? null,
      author_id: post.author_id ?? null,
    };
    loadedRef.current = saved;
    setLoaded(saved);
    setErrors({});
    setLastSaved(saved.updated_at);
    localStorage.removeItem(copyKey(base?.id ?? null));
    // Typing during the save keeps the form dirty (the next autosave takes it).
    if (formRef.current === snapshot) setDirty(false);
    if (!base)
      // The address names the new item; the editor stays as it is (no remount mid-typing).
      history.replaceState(null, '', `/admin/posts/${saved.id}`);
    return saved;
  };

  // Drafts save themselves a few seconds after the last change, once they have a title and content.
  const autosaves = (loaded === null || loaded.status === 'draft') && !conflict;
  useEffect(() => {
    if (!dirty || !autosaves || !Object.values(form.text).some(complete)) return;
    const timer = setTimeout(() => void save(undefined, true), AUTOSAVE_MS);
    return () => clearTimeout(timer);
  }, [form, dirty, autosaves]);

  const run = async (work: () => Promise<boolean>, done: MessageKey) => {
    setMessage(null);
    if (await work()) setMessage({ kind: 'ok', text: t(done) });
  };
  const reviewCall = async (path: 'approve' | 'return' | 'submit', body?: Record<string, unknown>) => {
    const saved = dirty || !loaded ? await save() : loaded;
    if (!saved) return false;
    const url = `/api/v2/posts/{id}/${path}` as '/api/v2/posts/{id}/approve';
    const response = await api.POST(url, {
      params: { path: { id: String(saved.id) } },
      body: (body ?? {}) as never,
    });
    if (response.error) {
      setMessage({ kind: 'error', text: response.error.detail ?? response.error.title });
      return false;
    }
    await load(saved.id);
    return true;
  };
  const scheduledIso = form.publish_at !== '' ? new Date(form.publish_at).toISOString() : null;
  const later = scheduledIso !== null && Date.parse(scheduledIso) > Date.now();

  const actions = {
    draft: () =>
      run(
        async () => !!(await save(loaded?.status === 'pending' ? undefined : 'draft')),
        'editor.done.draft',
      ),
    publish: () =>
      run(
        async () => !!(await save(later ? 'scheduled' : 'published')),
        later ? 'editor.done.scheduled' : 'editor.done.published',
      ),
    update: () => run(async () => !!(await save()), 'editor.done.saved'),
    unpublish: () => run(async () => !!(await save('draft')), 'editor.done.unpublished'),
    submit: () => run(() => reviewCall('submit'), 'editor.done.submitted'),
    approve: () =>
      run(() => reviewCall('approve', later ? { published_at: scheduledIso } : {}), 'editor.done.approved'),
    sendBack: () => run(() => reviewCall('return', { note }), 'editor.done.returned'),
    /** The post on the site's theme, in a new tab: a draft is saved first; a public post's saved text. */
    preview: async () => {
      const view = open('', '_blank');
      const saved = dirty && autosaves ? await save() : loadedRef.current;
      if (!saved) return view?.close();
      if (view) view.location.href = `/post/preview/${saved.id}`;
    },
    remove: async () => {
      if (!loaded || !confirm(t('editor.delete.confirm'))) return;
      const response = await api.DELETE('/api/v2/posts/{id}', {
        params: { path: { id: String(loaded.id) } },
        headers: { 'if-match': loaded.etag },
      });
      if (response.error)
        return setMessage({ kind: 'error', text: response.error.detail ?? response.error.title });
      setDirty(false);
      setLeaveGuard(null);
      navigate('/admin/posts');
    },
  };

  // Ctrl+S: the screen's save (issue 34 #20), when the user may change the post.
  const mayUpdate = postCan?.update ?? true;
  const mayPublish = postCan ? postCan.publish : can.publish_posts;
  const shownStatus = loaded?.status ?? 'new';
  useSaveShortcut(
    !mayUpdate || saving
      ? null
      : () =>
          void (shownStatus === 'new' || shownStatus === 'draft'
            ? actions.draft()
            : shownStatus === 'pending' || later === (shownStatus === 'scheduled')
              ? actions.update()
              : mayPublish && actions.publish()),
  );

  const reload = async () => {
    if (!loaded) return;
    setLoading(true);
    await load(loaded.id);
  };
  /** Keeps this version: takes the newer ETag and saves over the other version, knowingly. */
  const overwrite = async () => {
    const base = loadedRef.current;
    if (!base) return;
    const head = await api.GET('/api/v2/posts/{id}', {
      params: { path: { id: String(base.id) }, query: { fields: 'id' } },
    });
    const etag = head.response.headers.get('etag');
    if (!etag) return;
    loadedRef.current = { ...base, etag };
    setConflict(false);
    await run(async () => !!(await save()), 'editor.done.saved');
  };

  const status = loaded?.status ?? 'new';
  const missing = useMemo(() => locales.filter((code) => !complete(form.text[code])), [form.text, locales]);
  const seoTitle = form.meta_title.trim() || baseTitle || t('posts.untitled');
  const seoDescription =
    form.meta_description.trim() ||
    (form.text[me.locales.default]?.excerpt ?? '').trim() ||
    (form.text[me.locales.default]?.content ?? '')
      .replace(/<[^>]*>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 160);
  const fieldError = (name: string) =>
    errors[name]?.length ? (
      <p id={`error-${name}`} class="field-error">
        {errors[name].join(' ')}
      </p>
    ) : null;
  const described = (name: string) =>
    errors[name]?.length ? { 'aria-invalid': true, 'aria-describedby': `error-${name}` } : {};

  if (loading) return <p aria-live="polite">{t('app.loading')}</p>;
  const current = form.text[locale] ?? { title: '', excerpt: '', content: '' };

  return (
    <section aria-labelledby="editor-title" class="editor">
      {picking && (
        <MediaPicker
          onPick={(item) => {
            picking(item);
            setPicking(null);
          }}
          onClose={() => {
            picking(null);
            setPicking(null);
          }}
        />
      )}
      <div class="screen-head">
        <h1 id="editor-title">{id === null && !loaded ? t('editor.new') : t('editor.edit')}</h1>
        <p class="save-state" aria-live="polite">
          <span class={`status status-${status}`}>{t(`post.status.${status}` as MessageKey)}</span>{' '}
          {saving
            ? t('editor.saving')
            : dirty
              ? t('editor.unsaved')
              : lastSaved
                ? t('editor.saved', { time: formatDateTime(lastSaved) })
                : ''}
        </p>
      </div>

      {conflict && (
        <div class="notice error" role="alert">
          <p>{t('editor.conflict')}</p>
          <button type="button" onClick={() => void reload()}>
            {t('editor.conflict.reload')}
          </button>{' '}
          <button type="button" onClick={() => void overwrite()}>
            {t('editor.conflict.keep')}
          </button>
        </div>
      )}
      {restorable && (
        <div class="notice" role="status">
          <p>{t('editor.restore')}</p>
          <button
            type="button"
            onClick={() => {
              setForm(restorable);
              setRestorable(null);
              setDirty(true);
              setGeneration((n) => n + 1);
            }}
          >
            {t('editor.restore.yes')}
          </button>{' '}
          <button
            type="button"
            onClick={() => {
              setRestorable(null);
              localStorage.removeItem(copyKey(loaded?.id ?? null));
            }}
          >
            {t('editor.restore.no')}
          </button>
        </div>
      )}
      <Message message={message} />
      {!mayUpdate && (
        <p class="notice" role="status">
          {t('editor.readonly')}
        </p>
      )}

      <div class="editor-grid">
        <div class="editor-main">
          <LocaleTabs locales={locales} current={locale} missing={missing} onChoose={setLocale}>
            <label for="post-title">{t('editor.title')}</label>
            <input
              id="post-title"
              class="title-input"
              lang={bcp47(locale)}
              value={current.title}
              maxLength={255}
              onInput={(event) => changeText(locale, 'title', event.currentTarget.value)}
              {...described('title')}
            />
            {fieldError('title')}
            <p id="content-label" class="label">
              {t('editor.content')}
            </p>
            <RichText
              key={`${generation}-${locale}`}
              initial={current.content}
              labelledBy="content-label"
              lang={bcp47(locale)}
              onChange={(html) => changeText(locale, 'content', html)}
              {...(can.upload_media ? { pickImage } : {})}
            />
            {fieldError('content')}
            <p class="word-count help">
              {wordCountText(current.content)} · {t('editor.shortcuts')}
            </p>
            <label for="post-excerpt">{t('editor.excerpt')}</label>
            <textarea
              id="post-excerpt"
              rows={3}
              lang={bcp47(locale)}
              value={current.excerpt}
              onInput={(event) => changeText(locale, 'excerpt', event.currentTarget.value)}
            />
          </LocaleTabs>
        </div>

        <aside class="editor-side" aria-label={t('editor.settings')}>
          <fieldset class="publish">
            <legend>{t('editor.publishing')}</legend>
            {(can.publish_posts || status === 'pending') && status !== 'pending' && (
              <>
                <label for="publish-at">{t('editor.publish_at')}</label>
                <input
                  id="publish-at"
                  type="datetime-local"
                  value={form.publish_at}
                  onInput={(event) => change({ publish_at: event.currentTarget.value })}
                  aria-describedby="publish-at-help"
                />
                <p id="publish-at-help" class="help">
                  {t('editor.publish_at.help', { zone: Intl.DateTimeFormat().resolvedOptions().timeZone })}
                </p>
              </>
            )}
            {status === 'pending' && can.review_posts && (
              <>
                <label for="publish-at">{t('editor.publish_at')}</label>
                <input
                  id="publish-at"
                  type="datetime-local"
                  value={form.publish_at}
                  onInput={(event) => change({ publish_at: event.currentTarget.value })}
                />
              </>
            )}
            <div class="actions">
              {(status === 'new' || status === 'draft') && mayUpdate && (
                <button type="button" onClick={() => void actions.draft()} disabled={saving}>
                  {t('editor.save_draft')}
                </button>
              )}
              {(status === 'new' || status === 'draft') && mayPublish && (
                <button
                  type="button"
                  class="primary"
                  onClick={() => void actions.publish()}
                  disabled={saving}
                >
                  {later ? t('editor.schedule') : t('editor.publish')}
                </button>
              )}
              {(status === 'new' || status === 'draft') && !mayPublish && mayUpdate && (
                <button type="button" class="primary" onClick={() => void actions.submit()} disabled={saving}>
                  {t('editor.submit')}
                </button>
              )}
              {(status === 'published' || status === 'scheduled') && mayUpdate && (
                <>
                  {mayPublish && (
                    <button
                      type="button"
                      class="primary"
                      onClick={() =>
                        void (later !== (status === 'scheduled') ? actions.publish() : actions.update())
                      }
                      disabled={saving}
                    >
                      {t('editor.update')}
                    </button>
                  )}
                  <button type="button" onClick={() => void actions.unpublish()} disabled={saving}>
                    {t('editor.unpublish')}
                  </button>
                </>
              )}
              {status === 'pending' && mayUpdate && (
                <button type="button" onClick={() => void actions.update()} disabled={saving}>
                  {t('editor.save')}
                </button>
              )}
              {status === 'pending' && can.review_posts && (
                <button
                  type="button"
                  class="primary"
                  onClick={() => void actions.approve()}
                  disabled={saving}
                >
                  {later ? t('editor.approve.schedule') : t('editor.approve')}
                </button>
              )}
            </div>
            {status === 'pending' && can.review_posts && (
              <div class="send-back">
                <label for="review-note">{t('editor.note')}</label>
                <textarea
                  id="review-note"
                  rows={2}
                  value={note}
                  onInput={(event) => setNote(event.currentTarget.value)}
                />
                <button
                  type="button"
                  onClick={() => void actions.sendBack()}
                  disabled={saving || note.trim() === ''}
                >
                  {t('editor.send_back')}
                </button>
              </div>
            )}
            {loaded && (
              <p>
                <button type="button" onClick={() => void actions.preview()}>
                  {t('editor.preview')}
                </button>
                {dirty && !autosaves && <span class="help"> {t('editor.preview.saved_only')}</span>}
              </p>
            )}
            {loaded && (postCan?.delete ?? true) && (
              <button type="button" class="danger" onClick={() => void actions.remove()}>
                {t('editor.delete')}
              </button>
            )}
          </fieldset>

          <fieldset>
            <legend>{t('editor.address')}</legend>
            <label for="post-slug">{t('editor.slug')}</label>
            <input
              id="post-slug"
              value={form.slug}
              maxLength={190}
              aria-describedby="slug-state"
              onInput={(event) => {
                setSlugTouched(true);
                change({ slug: event.currentTarget.value });
              }}
              {...described('slug')}
            />
            <p id="slug-state" class="help" aria-live="polite">
              {slugState &&
                (slugState.available
                  ? t('editor.slug.free')
                  : t('editor.slug.taken', { suggestion: slugState.suggestion }))}
            </p>
            {fieldError('slug')}
          </fieldset>

          <fieldset>
            <legend>{t('editor.taxonomy')}</legend>
            <TagPicker
              type="post_category"
              label={t('editor.categories')}
              value={form.categories}
              onChange={(categories) => change({ categories })}
            />
            <TagPicker
              type="post_tag"
              label={t('editor.tags')}
              value={form.tags}
              onChange={(tags) => change({ tags })}
            />
          </fieldset>

          <fieldset>
            <legend>{t('editor.thumbnail')}</legend>
            <label for="post-thumbnail">{t('editor.thumbnail.url')}</label>
            <input
              id="post-thumbnail"
              type="url"
              value={form.thumbnail_url}
              onInput={(event) => change({ thumbnail_url: event.currentTarget.value })}
              {...described('thumbnail_url')}
            />
            {fieldError('thumbnail_url')}
            {can.upload_media && (
              <button
                type="button"
                onClick={() =>
                  void pick().then((item) => {
                    if (item) change({ thumbnail_url: item.url });
                  })
                }
              >
                {t('editor.thumbnail.library')}
              </button>
            )}
            {form.thumbnail_url.startsWith('http') && (
              <img class="thumbnail-preview" src={form.thumbnail_url} alt="" />
            )}
          </fieldset>

          {websites.length > 1 && (
            <fieldset>
              <legend>{t('editor.websites')}</legend>
              {websites.map((site) => (
                <label key={site.id} class="check">
                  <input
                    type="checkbox"
                    checked={form.website_ids.includes(site.id)}
                    onChange={(event) =>
                      change({
                        website_ids: event.currentTarget.checked
                          ? [...form.website_ids, site.id]
                          : form.website_ids.filter((other) => other !== site.id),
                      })
                    }
                  />{' '}
                  {site.name}
                </label>
              ))}
              {fieldError('website_id')}
            </fieldset>
          )}

          <fieldset>
            <legend>{t('editor.seo')}</legend>
            <label for="meta-title">{t('editor.meta_title')}</label>
            <input
              id="meta-title"
              value={form.meta_title}
              maxLength={1000}
              onInput={(event) => change({ meta_title: event.currentTarget.value })}
            />
            <label for="meta-description">{t('editor.meta_description')}</label>
            <textarea
              id="meta-description"
              rows={3}
              value={form.meta_description}
              onInput={(event) => change({ meta_description: event.currentTarget.value })}
            />
            <div class="serp" aria-label={t('editor.serp')} role="group">
              <p class="serp-url">{`${me.website?.domain ?? ''} › post › ${form.slug || '…'}`}</p>
              <p class="serp-title">{seoTitle.slice(0, 70)}</p>
              <p class="serp-description">{seoDescription.slice(0, 160)}</p>
            </div>
          </fieldset>
        </aside>
      </div>
    </section>
  );
}
