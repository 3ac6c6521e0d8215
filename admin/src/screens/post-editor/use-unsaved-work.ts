// Unsaved work in the post editor: a leave guard while the form is dirty, a copy in this browser, and
// this user's autosave on the server (issue 37: any device; it never changes the post, so it writes
// no revision). A post that opens with newer unsaved work from either place offers to restore it.
import { useEffect, useState } from 'preact/hooks';
import type { MutableRef } from 'preact/hooks';
import { api } from '../../api.js';
import { setLeaveGuard } from '../../nav.js';
import { SERVER_AUTOSAVE_MS, copyKey } from './form.js';
import type { Form, LocaleText, Loaded, PostData } from './form.js';

export function useUnsavedWork({
  form,
  dirty,
  loaded,
  loadedRef,
  formRef,
  defaultLocale,
}: {
  form: Form;
  dirty: boolean;
  loaded: Loaded | null;
  loadedRef: MutableRef<Loaded | null>;
  formRef: MutableRef<Form>;
  defaultLocale: string;
}) {
  /** The form as last kept in this user's autosave on the server, and when. */
  const [autosaved, setAutosaved] = useState<{ form: Form; at: string } | null>(null);
  const [restorable, setRestorable] = useState<Form | null>(null);
  /** Where the restorable work is kept: this browser, or the server's autosave (any device). */
  const [restorableFrom, setRestorableFrom] = useState<'browser' | 'server'>('browser');

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
      const text = snapshot.text[defaultLocale];
      if (!text) return;
      const kept = (each: LocaleText) => ({
        title: each.title.slice(0, 255),
        content: each.content,
        excerpt: each.excerpt,
      });
      const translations = Object.fromEntries(
        Object.entries(snapshot.text)
          .filter(([code]) => code !== defaultLocale)
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

  /** A post just loaded (`next`: its form): offers the unsaved work kept for it, if any is newer. */
  const offer = (postId: number, post: PostData, next: Form) => {
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
        if (!autosave?.newer || !next.text[defaultLocale]) return;
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
        const text = { ...next.text, [defaultLocale]: overlay(defaultLocale, autosave) };
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

  /** "No": the restorable work is dropped, here and (when it came from there) on the server. */
  const discard = () => {
    setRestorable(null);
    localStorage.removeItem(copyKey(loaded?.id ?? null));
    if (restorableFrom === 'server' && loaded) {
      void api
        .DELETE('/api/v2/posts/{id}/autosave', { params: { path: { id: String(loaded.id) } } })
        .catch(() => undefined);
    }
  };

  return { autosaved, restorable, restorableFrom, setRestorable, offer, discard };
}
