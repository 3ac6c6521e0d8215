// The post's translatable fields, one tab per locale (the tabs say which locales still miss a title
// or content): the title, the content (rich text) and the excerpt.
import { LocaleTabs, bcp47 } from '../../editor/locale-tabs.js';
import { RichText } from '../../editor/rich-text.js';
import { wordCountText } from '../../editor-keys.js';
import { t } from '../../i18n.js';
import { FieldError, described } from './field-errors.js';
import type { LocaleText } from './form.js';

export function TextFields({
  locales,
  locale,
  onChoose,
  missing,
  text,
  onText,
  editorKey,
  errors,
  pickImage,
}: {
  locales: string[];
  /** The locale shown. */
  locale: string;
  onChoose: (locale: string) => void;
  /** The locales without a title or content yet. */
  missing: string[];
  /** The text in the locale shown. */
  text: LocaleText;
  onText: (field: keyof LocaleText, value: string) => void;
  /** Changes when the content editor must start again (a post loaded, a text replaced from outside). */
  editorKey: string;
  errors: Record<string, string[]>;
  /** Picks an image of the media library for the content (those who may upload). */
  pickImage?: () => Promise<{ src: string; alt: string } | null>;
}) {
  return (
    <LocaleTabs locales={locales} current={locale} missing={missing} onChoose={onChoose}>
      <label for="post-title">{t('editor.title')}</label>
      <input
        id="post-title"
        class="title-input"
        lang={bcp47(locale)}
        value={text.title}
        maxLength={255}
        onInput={(event) => onText('title', event.currentTarget.value)}
        {...described(errors, 'title')}
      />
      <FieldError errors={errors} name="title" />
      <p id="content-label" class="label">
        {t('editor.content')}
      </p>
      <RichText
        key={editorKey}
        initial={text.content}
        labelledBy="content-label"
        lang={bcp47(locale)}
        onChange={(html) => onText('content', html)}
        {...(pickImage ? { pickImage } : {})}
      />
      <FieldError errors={errors} name="content" />
      <p class="word-count help">
        {wordCountText(text.content)} · {t('editor.shortcuts')}
      </p>
      <label for="post-excerpt">{t('editor.excerpt')}</label>
      <textarea
        id="post-excerpt"
        rows={3}
        lang={bcp47(locale)}
        value={text.excerpt}
        onInput={(event) => onText('excerpt', event.currentTarget.value)}
      />
    </LocaleTabs>
  );
}
