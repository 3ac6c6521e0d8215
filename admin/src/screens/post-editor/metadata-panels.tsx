// The post editor's side panels under the publishing box: the address (slug), categories and tags,
// the thumbnail, the websites the post is on, and the SEO fields with a search-result preview.
import { t } from '../../i18n.js';
import { shownUrl } from '../../media-url.js';
import { useAbilities, useMe } from '../../session.js';
import { Checkbox } from '../../widgets.js';
import { TagPicker } from '../tag-picker.js';
import type { MediaItem } from '../../media-upload.js';
import { FieldError, described } from './field-errors.js';
import type { Form } from './form.js';

export function MetadataPanels({
  form,
  change,
  onSlugInput,
  slugState,
  errors,
  pick,
  websites,
}: {
  form: Form;
  /** Changes fields of the form (it is then dirty). */
  change: (patch: Partial<Form>) => void;
  /** The slug typed by hand (it no longer follows the title). */
  onSlugInput: (slug: string) => void;
  slugState: { available: boolean; suggestion: string } | null;
  errors: Record<string, string[]>;
  /** Opens the media library; resolves with the item chosen. */
  pick: () => Promise<MediaItem | null>;
  websites: Array<{ id: number; name: string }>;
}) {
  const me = useMe();
  const can = useAbilities();
  // The search result's title and text: the SEO fields', else the title and the excerpt (or content).
  const base = form.text[me.locales.default];
  const seoTitle = form.meta_title.trim() || (base?.title ?? '') || t('posts.untitled');
  const seoDescription =
    form.meta_description.trim() ||
    (base?.excerpt ?? '').trim() ||
    (base?.content ?? '')
      .replace(/<[^>]*>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 160);
  return (
    <>
      <fieldset>
        <legend>{t('editor.address')}</legend>
        <label for="post-slug">{t('editor.slug')}</label>
        <input
          id="post-slug"
          value={form.slug}
          maxLength={190}
          aria-describedby="slug-state"
          onInput={(event) => onSlugInput(event.currentTarget.value)}
          {...described(errors, 'slug')}
        />
        <p id="slug-state" class="help" aria-live="polite">
          {slugState &&
            (slugState.available
              ? t('editor.slug.free')
              : t('editor.slug.taken', { suggestion: slugState.suggestion }))}
        </p>
        <FieldError errors={errors} name="slug" />
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
          {...described(errors, 'thumbnail_url')}
        />
        <FieldError errors={errors} name="thumbnail_url" />
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
          <FieldError errors={errors} name="website_id" />
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
    </>
  );
}
