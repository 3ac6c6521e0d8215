// What the post editor says above the form: someone else saved first (a conflict), unsaved work can be
// restored, and the note of an editor who sent the post back.
import { formatDateTime, t } from '../../i18n.js';
import type { Conflict, ReviewStep } from './form.js';

/** Someone else saved first: reload theirs, or keep ours (listing what it overwrites). */
export function ConflictNotice({
  conflict,
  onReload,
  onKeep,
}: {
  conflict: Conflict;
  onReload: () => void;
  onKeep: () => void;
}) {
  return (
    <div class="notice error" role="alert">
      <p>{t('editor.conflict')}</p>
      {conflict.fields && conflict.fields.length > 0 && (
        <p class="conflict-fields">{t('editor.conflict.fields', { fields: conflict.fields.join(', ') })}</p>
      )}
      <button type="button" onClick={onReload}>
        {t('editor.conflict.reload')}
      </button>{' '}
      <button type="button" onClick={onKeep}>
        {t('editor.conflict.keep')}
      </button>
    </div>
  );
}

/** Unsaved work kept in this browser or on the server: restore it, or drop it. */
export function RestoreNotice({
  from,
  onRestore,
  onDiscard,
}: {
  from: 'browser' | 'server';
  onRestore: () => void;
  onDiscard: () => void;
}) {
  return (
    <div class="notice" role="status">
      <p>{t(from === 'server' ? 'editor.restore.server' : 'editor.restore')}</p>
      <button type="button" onClick={onRestore}>
        {t('editor.restore.yes')}
      </button>{' '}
      <button type="button" onClick={onDiscard}>
        {t('editor.restore.no')}
      </button>
    </div>
  );
}

/** The note of the editor who sent the post back to its writer. */
export function ReviewNote({ review }: { review: ReviewStep }) {
  return (
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
  );
}
