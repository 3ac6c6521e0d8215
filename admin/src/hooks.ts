// The state every screen keeps the same way: what it loaded from API v2 (loading, the problem the
// API answered, loading again after a change) and a form being filled in (its values, whether they
// changed, a save under way, what the last save said). The screens keep their own markup: these
// hooks only hold the state.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Dispatch, Inputs, StateUpdater } from 'preact/hooks';
import type { Problem } from './api.js';

/** What the typed client answers (openapi-fetch): the body, or the problem. */
interface Answer<T> {
  data?: T;
  error?: Problem;
}

/** Something loaded from API v2. */
export interface Resource<T> {
  /** The last body loaded (kept while the next one loads: a screen that hides it checks `loading`). */
  data: T | null;
  /** A load is under way (from the first render on). */
  loading: boolean;
  /** What the API answered instead, for the last load (null: it loaded, or is loading). */
  error: Problem | null;
  /** Loads it again (after a change the screen made). */
  reload: () => void;
  /** Changes what is shown until the next load (a change shown before the server has it). */
  setData: Dispatch<StateUpdater<T | null>>;
}

/**
 * Loads `load()` on the first render, whenever one of `deps` changes, and on `reload()`. The answer
 * of a load that a newer one replaced is dropped. A load that gets no answer (a network failure)
 * stays `loading`, as the screens' own loads did (they went on showing "Loading").
 */
export function useResource<T>(load: () => Promise<Answer<T>>, deps: Inputs): Resource<T> {
  const [data, setData] = useState<T | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<Problem | null>(null);
  const [reloads, setReloads] = useState(0);
  useEffect(() => {
    let live = true;
    setLoading(true);
    setError(null);
    load()
      .then((answer) => {
        if (!live) return;
        if (answer.error) setError(answer.error);
        else setData(answer.data ?? null);
        setLoading(false);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [...deps, reloads]);
  // A reload is under way from the render that asked for it (not only from its effect, a frame later).
  const reload = () => {
    setLoading(true);
    setReloads((n) => n + 1);
  };
  return { data, loading, error, reload, setData };
}

/**
 * What a form's save says: the text to show when it worked (a string), the error to show when it
 * did not, or nothing (it did nothing, or showed what happened itself).
 */
export type Outcome = string | { error: string } | null | undefined | void;

/** A form being filled in and saved. */
export interface FormState<T> {
  values: T;
  /**
   * Changes some fields (the form is then dirty). A function gets the values as they are then: for a
   * change made while others may not have been rendered yet (a rich text's, typed fast).
   */
  set: (changes: Partial<T> | ((current: T) => Partial<T>)) => void;
  /**
   * Puts the values back (the first ones, or `next`): the form is no longer dirty. A function gets the
   * values as they are then: for a save that answers while the user goes on typing.
   */
  reset: (next?: T | ((current: T) => T)) => void;
  /** A field changed since the form started or was last reset. */
  dirty: boolean;
  /** A save is under way. */
  saving: boolean;
  /** What the last save (or another action of the screen) did: '' for nothing yet. */
  saved: string;
  setSaved: (text: string) => void;
  /** What went wrong: '' for nothing. */
  error: string;
  setError: (text: string) => void;
  /** Sends the form (the submit event's default is prevented): clears the error, then saves. */
  submit: (event?: Event) => Promise<void>;
  /**
   * Runs another action of the screen as a save (a toggle that saves at once, a second button): clears
   * the error, is `saving` meanwhile, and shows what it answers as `submit` shows what `save` answers.
   */
  run: (action: () => Promise<Outcome>) => Promise<void>;
}

export function useForm<T>(initial: T | (() => T), save: (values: T) => Promise<Outcome>): FormState<T> {
  const [values, setValues] = useState<T>(initial);
  const first = useRef(values);
  const [dirty, setDirty] = useState(false);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState('');
  const [error, setError] = useState('');
  const run = async (action: () => Promise<Outcome>) => {
    setError('');
    setSaving(true);
    try {
      const outcome = await action();
      if (typeof outcome === 'string') setSaved(outcome);
      else if (outcome) setError(outcome.error);
    } finally {
      setSaving(false);
    }
  };
  const submit = async (event?: Event) => {
    event?.preventDefault();
    await run(() => save(values));
  };
  return {
    values,
    set: (changes) => {
      setValues((current) => ({
        ...current,
        ...(typeof changes === 'function' ? changes(current) : changes),
      }));
      setDirty(true);
    },
    reset: (next) => {
      setValues(next ?? first.current);
      setDirty(false);
    },
    dirty,
    saving,
    saved,
    setSaved,
    error,
    setError,
    submit,
    run,
  };
}
