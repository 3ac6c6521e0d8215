// What an editor shows while a save gets no answer (issue 34 #14): an alert saying so and when the
// next try is, with a button to try at once (editor/save-queue.ts retries by itself meanwhile).
import { t } from '../i18n.js';
import type { SaveTrouble } from './save-queue.js';

export function SaveTroubleNotice({
  trouble,
  onRetry,
}: {
  trouble: SaveTrouble | null;
  onRetry: () => void;
}) {
  if (!trouble) return null;
  const seconds = Math.max(1, Math.round((trouble.retryAt - Date.now()) / 1000));
  return (
    <div class="notice error save-trouble" role="alert">
      <p>
        {trouble.status
          ? t('editor.trouble.status', { status: trouble.status, seconds })
          : t('editor.trouble', { seconds })}
      </p>
      <button type="button" onClick={onRetry}>
        {t('editor.trouble.retry')}
      </button>
    </div>
  );
}
