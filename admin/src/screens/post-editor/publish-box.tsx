// The post editor's publishing box: when to publish, and the actions the policy allows here (save a
// draft, publish now or at a time, submit for review, approve or send back with a note, unpublish),
// with the preview, the share link and Delete.
import { SharePreview } from '../../editor/history.js';
import { t } from '../../i18n.js';
import type { Abilities } from '../../session.js';
import type { Loaded } from './form.js';

/** What the box's buttons do (each saves first what it needs). */
export interface PublishActions {
  draft: () => Promise<void>;
  publish: () => Promise<void>;
  update: () => Promise<void>;
  unpublish: () => Promise<void>;
  submit: () => Promise<void>;
  approve: () => Promise<void>;
  sendBack: () => Promise<void>;
  preview: () => Promise<void>;
  remove: () => Promise<void>;
}

export function PublishBox({
  status,
  can,
  publishAt,
  onPublishAt,
  later,
  saving,
  mayUpdate,
  mayPublish,
  postCan,
  loaded,
  dirty,
  autosaves,
  note,
  setNote,
  actions,
}: {
  /** The post's status ('new' before its first save). */
  status: string;
  can: Abilities;
  /** The `datetime-local` value of the time to publish at ('' : now). */
  publishAt: string;
  onPublishAt: (value: string) => void;
  /** That time is in the future. */
  later: boolean;
  saving: boolean;
  mayUpdate: boolean;
  mayPublish: boolean;
  postCan: { update: boolean; publish: boolean; delete: boolean } | null;
  loaded: Loaded | null;
  dirty: boolean;
  /** Drafts save themselves (so a preview shows the text as typed). */
  autosaves: boolean;
  /** The note sent back with the post. */
  note: string;
  setNote: (note: string) => void;
  actions: PublishActions;
}) {
  return (
    <fieldset class="publish">
      <legend>{t('editor.publishing')}</legend>
      {(can.publish_posts || status === 'pending') && status !== 'pending' && (
        <>
          <label for="publish-at">{t('editor.publish_at')}</label>
          <input
            id="publish-at"
            type="datetime-local"
            value={publishAt}
            onInput={(event) => onPublishAt(event.currentTarget.value)}
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
            value={publishAt}
            onInput={(event) => onPublishAt(event.currentTarget.value)}
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
          <button type="button" class="primary" onClick={() => void actions.publish()} disabled={saving}>
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
          <button type="button" class="primary" onClick={() => void actions.approve()} disabled={saving}>
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
  );
}
