// The post editor's saves: one at a time (editor/save-queue.ts), each with the ETag the previous one
// returned (If-Match). When someone else saved meanwhile the API answers 412: the conflict is shown
// with what keeping one's own version would overwrite. A create carries one Idempotency-Key, so that a
// retried create makes one post, not two.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { MutableRef } from 'preact/hooks';
import { api } from '../../api.js';
import { SaveQueue, idempotencyKey } from '../../editor/save-queue.js';
import type { SaveTrouble } from '../../editor/save-queue.js';
import { bodyOf, copyKey, differingFields, formOf } from './form.js';
import type { Conflict, Form, Loaded, Problem } from './form.js';

export function usePostSaves({
  formRef,
  locales,
  defaultLocale,
  onSaved,
  onRefused,
}: {
  /** The form as it is now (read when a save starts, and to find a conflict's fields). */
  formRef: MutableRef<Form>;
  locales: string[];
  defaultLocale: string;
  /** A save went through: `snapshot` is the form it sent. */
  onSaved: (saved: Loaded, snapshot: Form) => void;
  /** The API refused a save the user asked for (not a conflict). */
  onRefused: (problem: Problem) => void;
}) {
  const [loaded, setLoadedState] = useState<Loaded | null>(null);
  const [conflict, setConflictState] = useState<Conflict | null>(null);
  const [saving, setSaving] = useState(false);
  const [trouble, setTrouble] = useState<SaveTrouble | null>(null);
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

  /** Someone else saved first: shows it, with what keeping ours would overwrite (their ETag kept). */
  const showConflict = async (postId: number): Promise<Conflict> => {
    const response = await readPost(postId);
    const etag = response?.response.headers.get('etag') ?? '';
    const fields =
      response?.data && etag
        ? differingFields(formRef.current, formOf(response.data.data, locales, defaultLocale), locales)
        : null;
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
          body: bodyOf(snapshot, locales, status) as never,
        });
        return { answer, snapshot, base, response: answer.response };
      }
      creating ??= { status: 'draft', ...bodyOf(snapshot, locales, status) };
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
        if (!quiet) onRefused(problem);
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
      onSaved(saved, snapshot);
      localStorage.removeItem(copyKey(base?.id ?? null));
      if (!base)
        // The address names the new item; the editor stays as it is (no remount mid-typing).
        history.replaceState(null, '', `/admin/posts/${saved.id}`);
      return saved;
    };
    const result = await queue.enqueue(send, settle);
    return result === 'again' ? save(status) : result;
  };

  return {
    loaded,
    loadedRef,
    setLoaded,
    conflict,
    conflictRef,
    setConflict,
    saving,
    trouble,
    queue,
    savedFormRef,
    readPost,
    showConflict,
    save,
  };
}
