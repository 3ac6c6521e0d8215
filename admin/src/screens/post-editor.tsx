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
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api } from '../api.js';
import type { components } from '../../../clients/typescript/schema.js';
import { LocaleTabs, bcp47, hasText } from '../editor/locale-tabs.js';
import { RichText } from '../editor/rich-text.js';
import { SaveQueue, idempotencyKey } from '../editor/save-queue.js';
import { SaveTroubleNotice } from '../editor/save-trouble.js';
import { HistoryPanel, SharePreview } from '../editor/history.js';
import type { SaveTrouble } from '../editor/save-queue.js';
import { formatDateTime, t } from '../i18n.js';
import { Checkbox, Message } from '../widgets.js';
import type { MessageKey } from '../i18n.js';
import { shownUrl } from '../media-url.js';
import { navigate, setLeaveGuard } from '../nav.js';
import { useAbilities, useMe } from '../session.js';
import { useSaveShortcut, wordCountText } from '../editor-keys.js';
import { useMediaPicker } from './media.js';
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
type PostData = components['schemas']['Post'];
type ReviewStep = components['schemas']['ReviewStep'];

/** Someone else saved first: the version they saved (its ETag) and what keeping ours overwrites. */
interface Conflict {
  etag: string;
  /** Labels of the fields where their version differs from ours (null: their version could not be read). */
  fields: string[] | null;
}

/** A new post becomes a draft by itself this long after it has a title and content. */
const FIRST_SAVE_MS = 4000;
/**
 * The server's autosave of unsaved work (issue 37 #2): this user's one copy of the post, in every
 * locale. It never changes the post, so it writes no revision: only Save and Publish do.
 */
const SERVER_AUTOSAVE_MS = 1500;
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

const sameIds = (a: Array<{ id: number }> | number[], b: Array<{ id: number }> | number[]) => {
  const ids = (list: Array<{ id: number }> | number[]) =>
    list
      .map((item) => (typeof item === 'number' ? item : item.id))
      .sort((x, y) => x - y)
      .join(',');
  return ids(a) === ids(b);
};

/** HTML as the browser reads it (`<img …/>` and `<img …>` alike), to compare two versions' content. */
function normalHtml(html: string): string {
  const template = document.createElement('template');
  template.innerHTML = html.trim();
  return template.innerHTML;
}

/** The fields where `theirs` differs from `ours`: what saving ours over theirs replaces. */
function differingFields(ours: Form, theirs: Form, locales: string[]): string[] {
  const fields: string[] = [];
  const named = (key: MessageKey, code: string) => (locales.length > 1 ? `${t(key)} (${code})` : t(key));
  const textKeys = { title: 'editor.title', content: 'editor.content', excerpt: 'editor.excerpt' } as const;
  for (const [field, key] of Object.entries(textKeys) as Array<[keyof LocaleText, MessageKey]>) {
    for (const code of locales) {
      const mine = (ours.text[code]?.[field] ?? '').trim();
      const other = (theirs.text[code]?.[field] ?? '').trim();
      const differ = field === 'content' ? normalHtml(mine) !== normalHtml(other) : mine !== other;
      if (differ) fields.push(named(key, code));
    }
  }
  const plain: Array<
    ['slug' | 'thumbnail_url' | 'meta_title' | 'meta_description' | 'publish_at', MessageKey]
  > = [
    ['slug', 'editor.slug'],
    ['thumbnail_url', 'editor.thumbnail'],
    ['meta_title', 'editor.meta_title'],
    ['meta_description', 'editor.meta_description'],
    ['publish_at', 'editor.publish_at'],
  ];
  for (const [field, key] of plain) {
    if (ours[field].trim() !== theirs[field].trim()) fields.push(t(key));
  }
  if (!sameIds(ours.categories, theirs.categories)) fields.push(t('editor.categories'));
  if (!sameIds(ours.tags, theirs.tags)) fields.push(t('editor.tags'));
  if (!sameIds(ours.website_ids, theirs.website_ids)) fields.push(t('editor.websites'));
  return fields;
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
  const [loaded, setLoadedState] = useState<Loaded | null>(null);
  const [loading, setLoading] = useState(id !== null);
  const [dirty, setDirty] = useState(false);
  const [slugTouched, setSlugTouched] = useState(id !== null);
  const [slugState, setSlugState] = useState<{ available: boolean; suggestion: string } | null>(null);
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const [conflict, setConflictState] = useState<Conflict | null>(null);
  const [saving, setSaving] = useState(false);
  const [trouble, setTrouble] = useState<SaveTrouble | null>(null);
  const [review, setReview] = useState<ReviewStep | null>(null);
  const [lastSaved, setLastSaved] = useState<string | null>(null);
  /** The form as last kept in this user's autosave on the server, and when. */
  const [autosaved, setAutosaved] = useState<{ form: Form; at: string } | null>(null);
  const [restorable, setRestorable] = useState<Form | null>(null);
  /** Where the restorable work is kept: this browser, or the server's autosave (any device). */
  const [restorableFrom, setRestorableFrom] = useState<'browser' | 'server'>('browser');
  const [websites, setWebsites] = useState<Array<{ id: number; name: string }>>([]);
  const [note, setNote] = useState('');
  // What the policy lets this user do to the loaded post (API v2's `can`; issue 34 #19).
  const [postCan, setPostCan] = useState<{ update: boolean; publish: boolean; delete: boolean } | null>(null);
  // The media library as a dialog: what it resolves with goes into the content or the thumbnail.
  const { pick, pickImage, dialog: mediaDialog } = useMediaPicker();
  // Editors are recreated (keyed) when a post loads or a locale's text is replaced from outside.
  const [generation, setGeneration] = useState(0);
  const formRef = useRef(form);
  formRef.current = form;
  // The version the next save builds on: set with the state, never from a render (a render between
  // two queued saves must not bring back an older ETag).
  const loadedRef = useRef(loaded);
  const setLoaded = (next: Loaded | null) => {
    loadedRef.current = next;
    setLoadedState(next);
  };
  const conflictRef = useRef(conflict);
  const setConflict = (next: Conflict | null) => {
    conflictRef.current = next;
    setConflictState(next);
  };
  /** The form as last loaded or saved (an autosave with nothing new sends nothing). */
  const savedFormRef = useRef<Form | null>(null);
  /** One Idempotency-Key for this editor's create: a retried create makes one post, not two. */
  const createKey = useRef(idempotencyKey());
  const queueRef = useRef<SaveQueue | null>(null);
  queueRef.current ??= new SaveQueue({ onBusy: setSaving, onTrouble: setTrouble });
  const queue = queueRef.current;
  useEffect(() => () => queue.close(), []);

  // ---- Loading -----------------------------------------------------------------------------------
  /** The form of a post as API v2 answers it. */
  const formOf = (post: PostData): Form => {
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
    return {
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
  };

  /** The post as the server has it now (and its ETag), or null when it cannot be read. */
  const readPost = async (postId: number) => {
    try {
      const response = await api.GET('/api/v2/posts/{id}', {
        params: { path: { id: String(postId) }, query: { include: 'tags,categories' } },
      });
      return response;
    } catch {
      return null;
    }
  };

  const load = async (postId: number) => {
    const response = await readPost(postId);
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
    const next = formOf(post);
    setForm(next);
    formRef.current = next;
    savedFormRef.current = next;
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
    // Unsaved work from an earlier visit, made on this very version of the post.
    try {
      const copy = JSON.parse(localStorage.getItem(copyKey(postId)) ?? 'null') as {
        base: string;
        form: Form;
      } | null;
      if (copy && copy.base === post.updated_at && JSON.stringify(copy.form) !== JSON.stringify(next)) {
        setRestorableFrom('browser');
        setRestorable(copy.form);
        return;
      }
    } catch {
      /* no copy */
    }
    // Else this user's autosave on the server, when it is newer than the saved post (any device); a
    // post the user may not change has none to offer (and asking would be refused).
    if (post.can && !post.can.update) return;
    void api
      .GET('/api/v2/posts/{id}/autosave', { params: { path: { id: String(postId) } } })
      .then(({ data }) => {
        const autosave = data?.data;
        if (!autosave?.newer || !next.text[me.locales.default]) return;
        // The autosave's text over the saved one, field by field, in every locale it kept.
        const overlay = (
          code: string,
          kept: { title?: string; content?: string; excerpt?: string | null },
        ) => {
          const saved = next.text[code] ?? { title: '', content: '', excerpt: '' };
          return {
            title: kept.title ?? saved.title,
            content: kept.content ?? saved.content,
            excerpt: kept.excerpt ?? saved.excerpt,
          };
        };
        const text = { ...next.text, [me.locales.default]: overlay(me.locales.default, autosave) };
        for (const [code, kept] of Object.entries(autosave.translations ?? {})) {
          if (code in next.text) text[code] = overlay(code, kept);
        }
        const merged: Form = { ...next, text };
        if (JSON.stringify(merged) === JSON.stringify(next)) return;
        setRestorableFrom('server');
        setRestorable(merged);
      })
      .catch(() => undefined);
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
  // The server's autosave of a post that exists: this user's one copy, never what readers see.
  useEffect(() => {
    const base = loadedRef.current;
    if (!dirty || !base) return;
    const timer = setTimeout(() => {
      const snapshot = formRef.current;
      const text = snapshot.text[me.locales.default];
      if (!text) return;
      const kept = (each: LocaleText) => ({
        title: each.title.slice(0, 255),
        content: each.content,
        excerpt: each.excerpt,
      });
      const translations = Object.fromEntries(
        Object.entries(snapshot.text)
          .filter(([code]) => code !== me.locales.default)
          .map(([code, each]) => [code, kept(each)]),
      );
      void api
        .PUT('/api/v2/posts/{id}/autosave', {
          params: { path: { id: String(base.id) } },
          body: { ...kept(text), translations, base_version: base.updated_at },
        })
        .then(({ data }) => {
          if (data) setAutosaved({ form: snapshot, at: data.data.updated_at });
        })
        .catch(() => undefined);
    }, SERVER_AUTOSAVE_MS);
    return () => clearTimeout(timer);
  }, [form, dirty, loaded?.id]);

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

  /** Someone else saved first: shows it, with what keeping ours would overwrite (their ETag kept). */
  const showConflict = async (postId: number): Promise<Conflict> => {
    const response = await readPost(postId);
    const etag = response?.response.headers.get('etag') ?? '';
    const fields =
      response?.data && etag ? differingFields(formRef.current, formOf(response.data.data), locales) : null;
    const found = { etag, fields };
    setConflict(found);
    return found;
  };

  /**
   * Saves the form (with `status` when given) after every save queued before; the saved post, or null.
   * `quiet`: a new post's first save by itself, which sends nothing when the form is as last saved or
   * a conflict is open.
   */
  const save = async (status?: string, quiet = false): Promise<Loaded | null> => {
    // A create's retries send what its first try sent (the server keeps its answer for the key).
    let creating: Record<string, unknown> | null = null;
    const send = async () => {
      if (quiet && (conflictRef.current || formRef.current === savedFormRef.current)) return null;
      if (quiet && loadedRef.current && loadedRef.current.status !== 'draft') return null;
      const snapshot = formRef.current;
      const base = loadedRef.current;
      if (base) {
        const answer = await api.PATCH('/api/v2/posts/{id}', {
          params: { path: { id: String(base.id) } },
          headers: { 'if-match': base.etag },
          body: bodyOf(snapshot, status) as never,
        });
        return { answer, snapshot, base, response: answer.response };
      }
      creating ??= { status: 'draft', ...bodyOf(snapshot, status) };
      const answer = await api.POST('/api/v2/posts', {
        headers: { 'idempotency-key': createKey.current },
        body: creating as never,
      });
      return { answer, snapshot, base, response: answer.response };
    };
    type Sent = NonNullable<Awaited<ReturnType<typeof send>>>;
    // Runs before the next save of the queue starts: that one carries the ETag this one returned.
    const settle = async ({ answer, snapshot, base }: Sent): Promise<Loaded | 'again' | null> => {
      // A create answered (made, or refused): the next create is another request.
      if (!base) createKey.current = idempotencyKey();
      if (answer.error) {
        const problem = answer.error as Problem;
        if (answer.response.status === 412 && base) {
          const found = await showConflict(base.id);
          // Their version is ours already (a save whose answer was lost): no conflict, go on from it.
          if (found.fields?.length === 0) {
            setLoaded({ ...base, etag: found.etag });
            setConflict(null);
            return quiet ? null : 'again';
          }
          return null;
        }
        if (!quiet) {
          setErrors(problem.errors ?? {});
          setMessage({ kind: 'error', text: problem.detail ?? problem.title });
        }
        return null;
      }
      const post = answer.data.data;
      const saved: Loaded = {
        id: post.id!,
        status: post.status!,
        etag: answer.response.headers.get('etag') ?? '',
        updated_at: post.updated_at!,
        published_at: post.published_at ?? null,
        author_id: post.author_id ?? null,
      };
      savedFormRef.current = snapshot;
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
    const result = await queue.enqueue(send, settle);
    return result === 'again' ? save(status) : result;
  };

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
        <div class="notice error" role="alert">
          <p>{t('editor.conflict')}</p>
          {conflict.fields && conflict.fields.length > 0 && (
            <p class="conflict-fields">
              {t('editor.conflict.fields', { fields: conflict.fields.join(', ') })}
            </p>
          )}
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
          <p>{t(restorableFrom === 'server' ? 'editor.restore.server' : 'editor.restore')}</p>
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
              if (restorableFrom === 'server' && loaded) {
                void api
                  .DELETE('/api/v2/posts/{id}/autosave', { params: { path: { id: String(loaded.id) } } })
                  .catch(() => undefined);
              }
            }}
          >
            {t('editor.restore.no')}
          </button>
        </div>
      )}
      <Message message={message} />
      {review?.decision === 'returned' && status === 'draft' && review.note && (
        <section class="notice review-note" aria-labelledby="review-note-title">
          <h2 id="review-note-title">{t('editor.returned.title')}</h2>
          <p>
            {t('editor.returned.by', {
              name: review.user_name ?? t('editor.returned.someone'),
              time: formatDateTime(review.at),
            })}
          </p>
          <blockquote class="review-note-text">{review.note}</blockquote>
        </section>
      )}
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
            {loaded && loaded.status !== 'published' && <SharePreview postId={loaded.id} />}
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
            {/^(https?:\/\/|\/media\/)/.test(form.thumbnail_url) && (
              <img class="thumbnail-preview" src={shownUrl(form.thumbnail_url)} alt="" />
            )}
          </fieldset>

          {websites.length > 1 && (
            <fieldset>
              <legend>{t('editor.websites')}</legend>
              {websites.map((site) => (
                <Checkbox
                  key={site.id}
                  checked={form.website_ids.includes(site.id)}
                  onChange={(on) =>
                    change({
                      website_ids: on
                        ? [...form.website_ids, site.id]
                        : form.website_ids.filter((other) => other !== site.id),
                    })
                  }
                >
                  {site.name}
                </Checkbox>
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
