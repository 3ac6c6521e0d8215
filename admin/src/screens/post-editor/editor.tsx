// The post editor: every translatable field in one tab per locale (tabs show which locales are still
// missing), the slug (from the title until edited, checked for clashes as you type), excerpt,
// thumbnail, tags and categories (created on the fly), SEO fields with a search-result preview, the
// websites the post is on, and the actions the policy allows here: save a draft, publish now or at a
// time, submit for review, approve or send back. Drafts save themselves a few seconds after a change;
// every post keeps a copy of unsaved work in this browser. Saves go one at a time (editor/save-queue.ts),
// each with the ETag the previous one returned (If-Match): when someone else saved meanwhile, the API
// answers 412 and the editor says so, listing what keeping one's own version would overwrite. A save
// that gets no answer is said (an alert) and tried again until the server answers. A post sent back by
// an editor shows the editor's note. What the editor holds is also autosaved on the server for this
// user (issue 37): reopening the post on any device offers a newer autosave. The History panel lists,
// compares and restores saved versions; Share preview makes a link for someone without an account.
//
// The pieces: form.ts (the form and its API v2 shapes), use-post-saves.ts (the save queue, ETags and
// conflicts), use-unsaved-work.ts (leave guard, browser copy, server autosave, restore offers),
// use-slug.ts, text-fields.tsx (the locale tabs), publish-box.tsx, metadata-panels.tsx, notices.tsx.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api } from '../../api.js';
import { useResource } from '../../hooks.js';
import { SaveTroubleNotice } from '../../editor/save-trouble.js';
import { HistoryPanel } from '../../editor/history.js';
import { formatDateTime, t } from '../../i18n.js';
import { Message } from '../../widgets.js';
import type { MessageKey } from '../../i18n.js';
import { navigate, setLeaveGuard } from '../../nav.js';
import { useAbilities, useMe } from '../../session.js';
import { useSaveShortcut } from '../../editor-keys.js';
import { useMediaPicker } from '../media.js';
import { FIRST_SAVE_MS, complete, emptyForm, formOf } from './form.js';
import type { Form, LocaleText, ReviewStep } from './form.js';
import { MetadataPanels } from './metadata-panels.js';
import { ConflictNotice, RestoreNotice, ReviewNote } from './notices.js';
import { PublishBox } from './publish-box.js';
import type { PublishActions } from './publish-box.js';
import { TextFields } from './text-fields.js';
import { usePostSaves } from './use-post-saves.js';
import { useSlugCheck } from './use-slug.js';
import { useUnsavedWork } from './use-unsaved-work.js';

export function PostEditor({ id }: { id: number | null }) {
  const me = useMe();
  const can = useAbilities();
  const locales = me.locales.supported;
  const [locale, setLocale] = useState(me.locales.default);
  const [form, setForm] = useState<Form>(() => emptyForm(locales, me.website?.id ?? null));
  const [loading, setLoading] = useState(id !== null);
  const [dirty, setDirty] = useState(false);
  const [slugTouched, setSlugTouched] = useState(id !== null);
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const [review, setReview] = useState<ReviewStep | null>(null);
  const [lastSaved, setLastSaved] = useState<string | null>(null);
  const [note, setNote] = useState('');
  // What the policy lets this user do to the loaded post (API v2's `can`; issue 34 #19).
  const [postCan, setPostCan] = useState<{ update: boolean; publish: boolean; delete: boolean } | null>(null);
  // The media library as a dialog: what it resolves with goes into the content or the thumbnail.
  const { pick, pickImage, dialog: mediaDialog } = useMediaPicker();
  // Editors are recreated (keyed) when a post loads or a locale's text is replaced from outside.
  const [generation, setGeneration] = useState(0);
  const formRef = useRef(form);
  formRef.current = form;
  const saves = usePostSaves({
    formRef,
    locales,
    defaultLocale: me.locales.default,
    onSaved: (saved, snapshot) => {
      setErrors({});
      setLastSaved(saved.updated_at);
      // Typing during the save keeps the form dirty (the next autosave takes it).
      if (formRef.current === snapshot) setDirty(false);
    },
    onRefused: (problem) => {
      setErrors(problem.errors ?? {});
      setMessage({ kind: 'error', text: problem.detail ?? problem.title });
    },
  });
  const { loaded, loadedRef, setLoaded, conflict, conflictRef, setConflict, saving, trouble, queue } = saves;
  const { save, showConflict } = saves;

  // ---- Unsaved work: a leave guard, a copy in this browser, the server's autosave ----------------
  const unsaved = useUnsavedWork({
    form,
    dirty,
    loaded,
    loadedRef,
    formRef,
    defaultLocale: me.locales.default,
  });
  const { autosaved, restorable, restorableFrom } = unsaved;

  // ---- Loading -----------------------------------------------------------------------------------
  const load = async (postId: number) => {
    const response = await saves.readPost(postId);
    if (!response || response.error || !response.data) {
      setMessage({
        kind: 'error',
        text: response ? (response.error?.detail ?? response.error?.title ?? '') : t('editor.network.load'),
      });
      setLoading(false);
      return;
    }
    const post = response.data.data;
    setPostCan(post.can ?? null);
    const next = formOf(post, locales, me.locales.default);
    setForm(next);
    formRef.current = next;
    saves.savedFormRef.current = next;
    setLoaded({
      id: post.id!,
      status: post.status!,
      etag: response.response.headers.get('etag') ?? '',
      updated_at: post.updated_at!,
      published_at: post.published_at ?? null,
      author_id: post.author_id ?? null,
    });
    setDirty(false);
    setConflict(null);
    setGeneration((n) => n + 1);
    setLoading(false);
    // The newest review step: a post sent back shows the editor's note to its writer.
    void api
      .GET('/api/v2/posts/{id}/review', { params: { path: { id: String(postId) } } })
      .then(({ data }) => setReview(data?.data ?? null))
      .catch(() => setReview(null));
    unsaved.offer(postId, post, next);
  };

  useEffect(() => {
    // A draft saved for the first time gets its address: the editor keeps working on what it has.
    if (id !== null && id !== loadedRef.current?.id) void load(id);
  }, [id]);
  // The websites the post can be on: those the user manages, and this one.
  const websites =
    useResource(
      () =>
        api.GET('/api/v2/websites', { params: { query: { per_page: 100 } } }).then(({ data }) => {
          const managed = (data?.data ?? []).map((site) => ({
            id: site.id,
            name: site.fields.site_name ?? site.domain,
          }));
          const here = me.website;
          if (here && !managed.some((site) => site.id === here.id))
            managed.unshift({ id: here.id, name: here.name });
          return { data: managed };
        }),
      [id],
    ).data ?? [];

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
  const slugState = useSlugCheck({
    source: slugTouched ? form.slug : baseTitle,
    touched: slugTouched,
    postId: loaded?.id ?? null,
    onSuggestion: (slug) => setForm((current) => ({ ...current, slug })),
  });

  // ---- Saving -------------------------------------------------------------------------------------
  // A new post becomes a draft by itself a few seconds after it has a title and content (so that its
  // autosave has a post to belong to); after that only Save and Publish change the post.
  const autosaves = (loaded === null || loaded.status === 'draft') && !conflict;
  useEffect(() => {
    if (!dirty || loaded !== null || conflict || !Object.values(form.text).some(complete)) return;
    const timer = setTimeout(() => void save(undefined, true), FIRST_SAVE_MS);
    return () => clearTimeout(timer);
  }, [form, dirty, loaded, conflict]);

  const run = async (work: () => Promise<boolean>, done: MessageKey) => {
    setMessage(null);
    try {
      if (await work()) setMessage({ kind: 'ok', text: t(done) });
    } catch {
      // A call outside the save queue (a review step, a delete) that got no answer.
      setMessage({ kind: 'error', text: t('editor.network') });
    }
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

  const actions: PublishActions = {
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
      const response = await api
        .DELETE('/api/v2/posts/{id}', {
          params: { path: { id: String(loaded.id) } },
          headers: { 'if-match': loaded.etag },
        })
        .catch(() => null);
      if (!response) return setMessage({ kind: 'error', text: t('editor.network') });
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
  /** Keeps this version: saves over the version the conflict showed (its ETag), knowingly. */
  const overwrite = async () => {
    const base = loadedRef.current;
    if (!base) return;
    // Their version could not be read when the conflict was found: read it now, and show it first.
    if (!conflictRef.current?.etag) {
      const found = await showConflict(base.id);
      if (!found.etag) setMessage({ kind: 'error', text: t('editor.network') });
      return;
    }
    setLoaded({ ...base, etag: conflictRef.current.etag });
    setConflict(null);
    await run(async () => !!(await save()), 'editor.done.saved');
  };

  const status = loaded?.status ?? 'new';
  const missing = useMemo(() => locales.filter((code) => !complete(form.text[code])), [form.text, locales]);

  if (loading) return <p aria-live="polite">{t('app.loading')}</p>;
  const current = form.text[locale] ?? { title: '', excerpt: '', content: '' };

  return (
    <section aria-labelledby="editor-title" class="editor">
      {mediaDialog}
      <div class="screen-head">
        <h1 id="editor-title">{id === null && !loaded ? t('editor.new') : t('editor.edit')}</h1>
        <p class="save-state" aria-live="polite">
          <span class={`status status-${status}`}>{t(`post.status.${status}` as MessageKey)}</span>{' '}
          {trouble
            ? t('editor.trouble.state')
            : saving
              ? t('editor.saving')
              : dirty
                ? autosaved?.form === form
                  ? t('editor.autosaved', { time: formatDateTime(autosaved.at) })
                  : t('editor.unsaved')
                : lastSaved
                  ? t('editor.saved', { time: formatDateTime(lastSaved) })
                  : ''}
        </p>
      </div>

      <SaveTroubleNotice trouble={trouble} onRetry={() => queue.retryNow()} />
      {conflict && (
        <ConflictNotice conflict={conflict} onReload={() => void reload()} onKeep={() => void overwrite()} />
      )}
      {restorable && (
        <RestoreNotice
          from={restorableFrom}
          onRestore={() => {
            setForm(restorable);
            unsaved.setRestorable(null);
            setDirty(true);
            setGeneration((n) => n + 1);
          }}
          onDiscard={unsaved.discard}
        />
      )}
      <Message message={message} />
      {review?.decision === 'returned' && status === 'draft' && review.note && <ReviewNote review={review} />}
      {!mayUpdate && (
        <p class="notice" role="status">
          {t('editor.readonly')}
        </p>
      )}

      <div class="editor-grid">
        <div class="editor-main">
          <TextFields
            locales={locales}
            locale={locale}
            onChoose={setLocale}
            missing={missing}
            text={current}
            onText={(field, value) => changeText(locale, field, value)}
            editorKey={`${generation}-${locale}`}
            errors={errors}
            {...(can.upload_media ? { pickImage } : {})}
          />
        </div>

        <aside class="editor-side" aria-label={t('editor.settings')}>
          <PublishBox
            status={status}
            can={can}
            publishAt={form.publish_at}
            onPublishAt={(publish_at) => change({ publish_at })}
            later={later}
            saving={saving}
            mayUpdate={mayUpdate}
            mayPublish={mayPublish}
            postCan={postCan}
            loaded={loaded}
            dirty={dirty}
            autosaves={autosaves}
            note={note}
            setNote={setNote}
            actions={actions}
          />

          <MetadataPanels
            form={form}
            change={change}
            onSlugInput={(slug) => {
              setSlugTouched(true);
              change({ slug });
            }}
            slugState={slugState}
            errors={errors}
            pick={pick}
            websites={websites}
          />
        </aside>
      </div>
      {loaded && (postCan?.update ?? true) && (
        <HistoryPanel
          postId={loaded.id}
          etag={loaded.etag}
          version={loaded.updated_at}
          onRestored={() => load(loaded.id)}
        />
      )}
    </section>
  );
}
