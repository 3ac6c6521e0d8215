// The media library: the website's items as a grid or a list, searchable and filtered by type, page
// by page; files uploaded by dropping them or choosing them (several at once, a progress bar each);
// one item opened shows its image, its WebP and size variants, where it is used, its alt text and
// caption (saved with If-Match) and a delete that warns when the item is used. `MediaLibrary` is
// also the editor's picker: with `onPick`, choosing an item hands it over.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.js';
import { useForm, useResource } from '../hooks.js';
import { formatDateTime, t } from '../i18n.js';
import { Message, Pager, SearchForm } from '../widgets.js';
import type { MessageKey } from '../i18n.js';
import { uploadFile } from '../media-upload.js';
import type { MediaItem } from '../media-upload.js';
import { shownUrl } from '../media-url.js';
import { useAbilities } from '../session.js';

type Usage = NonNullable<MediaItem['usage']>;
interface Upload {
  key: string;
  name: string;
  progress: number;
  error?: string;
  done?: boolean;
}

const PER_PAGE = 24;
const TYPES = ['', 'image', 'video', 'audio', 'document'] as const;

function sizeOf(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The smallest variant at least `width` wide (else the original): what a grid cell shows. */
function thumbOf(item: MediaItem, width = 320): string {
  const sized = (item.variants ?? [])
    .filter((variant) => variant.width !== null && variant.width >= width)
    .sort((a, b) => (a.width ?? 0) - (b.width ?? 0));
  // This installation's files by their path: shown on whatever domain the panel is open.
  return shownUrl(sized[0]?.url ?? item.url);
}

function Detail({
  item,
  onChanged,
  onDeleted,
}: {
  item: MediaItem;
  onChanged: (item: MediaItem) => void;
  onDeleted: () => void;
}) {
  // The item with where it is used, and its ETag (the save's If-Match; each save answers the next).
  const detail = useResource(
    () =>
      api
        .GET('/api/v2/media/{id}', { params: { path: { id: String(item.id) }, query: { include: 'usage' } } })
        .then(({ data, response }) => ({
          data: { etag: response.headers.get('etag'), usage: data?.data.usage ?? null },
        })),
    [item.id],
  );
  const etag = detail.data?.etag ?? null;
  const usage: Usage | null = detail.data?.usage ?? null;
  const form = useForm({ alt: item.alt ?? '', caption: item.caption ?? '' }, async ({ alt, caption }) => {
    const { data, error, response } = await api.PATCH('/api/v2/media/{id}', {
      params: { path: { id: String(item.id) } },
      headers: etag ? { 'if-match': etag } : {},
      body: { alt: alt.trim() || null, caption: caption.trim() || null },
    });
    if (error) {
      form.setSaved('');
      return { error: error.status === 412 ? t('media.conflict') : (error.detail ?? error.title) };
    }
    detail.setData((current) => ({ usage: current?.usage ?? null, etag: response.headers.get('etag') }));
    onChanged(data.data as MediaItem);
    return t('media.saved');
  });
  const { alt, caption } = form.values;
  // One message at a time: what the last save said, or what went wrong (a save, a delete).
  const message = form.error
    ? { kind: 'error', text: form.error }
    : form.saved
      ? { kind: 'ok', text: form.saved }
      : null;
  const [inUse, setInUse] = useState<string | null>(null);

  // Another item opened in the same panel: its fields, no message.
  useEffect(() => {
    form.reset({ alt: item.alt ?? '', caption: item.caption ?? '' });
    form.setSaved('');
    form.setError('');
    setInUse(null);
  }, [item.id]);

  const remove = async (force: boolean) => {
    if (!force && !confirm(t('media.delete.confirm', { name: item.file_name }))) return;
    const { error } = await api.DELETE('/api/v2/media/{id}', {
      params: { path: { id: String(item.id) }, query: force ? { force: 'true' } : {} },
    });
    if (error) {
      if (error.status === 409) return setInUse(error.detail ?? error.title);
      form.setSaved('');
      return form.setError(error.detail ?? error.title);
    }
    onDeleted();
  };

  const uses = usage ? usage.posts.length + usage.pages.length + usage.websites.length + usage.elsewhere : 0;
  return (
    <section class="media-detail" aria-labelledby="media-detail-title">
      <h2 id="media-detail-title">{item.file_name}</h2>
      {item.type === 'image' && <img src={thumbOf(item, 768)} alt={item.alt ?? ''} class="media-preview" />}
      <p class="help">
        {item.width && item.height ? `${item.width} × ${item.height} · ` : ''}
        {sizeOf(item.size)} · {item.mime_type} · {formatDateTime(item.created_at)}
      </p>
      {(item.variants ?? []).length > 0 && (
        <details>
          <summary>{t('media.variants', { n: (item.variants ?? []).length })}</summary>
          <ul class="variants">
            {(item.variants ?? []).map((variant) => (
              <li key={variant.name}>
                <a href={variant.url} target="_blank" rel="noopener">
                  {variant.name}
                </a>{' '}
                {variant.width} × {variant.height} · {sizeOf(variant.size)}
              </li>
            ))}
          </ul>
        </details>
      )}
      <form onSubmit={(event) => void form.submit(event)}>
        <label for="media-alt">{t('media.alt')}</label>
        <input
          id="media-alt"
          value={alt}
          maxLength={1000}
          onInput={(event) => form.set({ alt: event.currentTarget.value })}
        />
        <p class="help">{t('media.alt.help')}</p>
        <label for="media-caption">{t('media.caption')}</label>
        <textarea
          id="media-caption"
          rows={2}
          value={caption}
          onInput={(event) => form.set({ caption: event.currentTarget.value })}
        />
        <div class="actions">
          <button type="submit" class="primary">
            {t('media.save')}
          </button>
          <button type="button" class="danger" onClick={() => void remove(false)}>
            {t('media.delete')}
          </button>
        </div>
      </form>
      <Message message={message} />
      {inUse && (
        <div class="notice error" role="alert">
          <p>{inUse}</p>
          <button type="button" class="danger" onClick={() => void remove(true)}>
            {t('media.delete.force')}
          </button>
        </div>
      )}
      <h3>{t('media.usage')}</h3>
      {usage === null ? (
        <p>{t('app.loading')}</p>
      ) : uses === 0 ? (
        <p>{t('media.usage.none')}</p>
      ) : (
        <ul class="usage">
          {usage.posts.map((post) => (
            <li key={`post-${post.id}`}>
              <a href={`/admin/posts/${post.id}`}>{post.title}</a> (
              {post.as.map((as) => t(`media.as.${as}` as MessageKey)).join(', ')})
            </li>
          ))}
          {usage.pages.map((page) => (
            <li key={`page-${page.id}`}>
              {page.title} ({t('media.as.page')})
            </li>
          ))}
          {usage.websites.map((site) => (
            <li key={`site-${site.id}`}>
              {site.name} ({site.as.map((as) => t(`website.site_${as}` as MessageKey)).join(', ')})
            </li>
          ))}
          {usage.elsewhere > 0 && <li>{t('media.usage.elsewhere', { n: usage.elsewhere })}</li>}
        </ul>
      )}
    </section>
  );
}

export function MediaLibrary({ onPick }: { onPick?: (item: MediaItem) => void }) {
  const can = useAbilities();
  const [view, setView] = useState<'grid' | 'list'>('grid');
  const [query, setQuery] = useState('');
  const [type, setType] = useState<(typeof TYPES)[number]>(onPick ? 'image' : '');
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<MediaItem | null>(null);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [dragging, setDragging] = useState(false);
  const chooser = useRef<HTMLInputElement>(null);

  const list = useResource(
    () =>
      api
        .GET('/api/v2/media', {
          params: {
            query: {
              page,
              per_page: PER_PAGE,
              ...(query ? { q: query } : {}),
              ...(type ? { filter: { type } } : {}),
            },
          },
        })
        .then(({ data, error: problem }) => ({
          data: data && { items: data.data as MediaItem[], pages: data.meta.pagination.total_pages },
          error: problem,
        })),
    [query, type, page],
  );
  const items = list.data?.items ?? null;
  const pages = list.data?.pages ?? 1;
  const error = list.error ? (list.error.detail ?? list.error.title) : null;

  const upload = async (files: FileList | File[]) => {
    const batch = Array.from(files).map((file, index) => ({
      file,
      key: `${Date.now()}-${index}-${file.name}`,
    }));
    setUploads((current) => [
      ...batch.map(({ file, key }) => ({ key, name: file.name, progress: 0 })),
      ...current,
    ]);
    const update = (key: string, patch: Partial<Upload>) =>
      setUploads((current) => current.map((entry) => (entry.key === key ? { ...entry, ...patch } : entry)));
    // Two at a time: quick for a handful of photos, gentle with the server's image work.
    const queue = [...batch];
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const { file, key } = next;
        const outcome = await uploadFile(file, (progress) => update(key, { progress }));
        update(key, outcome.error ? { error: outcome.error } : { progress: 1, done: true });
      }
    };
    await Promise.all([worker(), worker()]);
    setPage(1);
    list.reload();
  };

  return (
    <div class="media-library">
      {can.upload_media && (
        <div
          class={dragging ? 'drop-zone dragging' : 'drop-zone'}
          onDragOver={(event) => {
            event.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={(event) => {
            event.preventDefault();
            setDragging(false);
            if (event.dataTransfer?.files.length) void upload(event.dataTransfer.files);
          }}
        >
          <p>{t('media.drop')}</p>
          <label for="media-files" class="button">
            {t('media.choose')}
          </label>
          <input
            id="media-files"
            ref={chooser}
            type="file"
            accept="image/*"
            multiple
            class="visually-hidden"
            onChange={(event) => {
              const files = event.currentTarget.files;
              if (files?.length) void upload(Array.from(files));
              event.currentTarget.value = '';
            }}
          />
        </div>
      )}
      {uploads.length > 0 && (
        <ul class="uploads" aria-label={t('media.uploads')}>
          {uploads.map((entry) => (
            <li key={entry.key}>
              <span>{entry.name}</span>
              <progress
                max={1}
                value={entry.progress}
                aria-label={t('media.progress', { name: entry.name })}
              />
              <span role={entry.error ? 'alert' : undefined} class={entry.error ? 'field-error' : 'help'}>
                {entry.error ?? (entry.done ? t('media.uploaded') : `${Math.round(entry.progress * 100)}%`)}
              </span>
            </li>
          ))}
        </ul>
      )}
      <div class="filters">
        <SearchForm
          id="media-search"
          label={t('media.search')}
          onSearch={(words) => {
            setQuery(words);
            setPage(1);
          }}
        />
        <div class="inline-field">
          <label for="media-type">{t('media.type')}</label>
          <select
            id="media-type"
            value={type}
            onChange={(event) => {
              setType(event.currentTarget.value as (typeof TYPES)[number]);
              setPage(1);
            }}
          >
            {TYPES.map((name) => (
              <option key={name} value={name}>
                {t(`media.type.${name || 'any'}` as MessageKey)}
              </option>
            ))}
          </select>
        </div>
        <div class="inline-field" role="group" aria-label={t('media.view')}>
          <button type="button" aria-pressed={view === 'grid'} onClick={() => setView('grid')}>
            {t('media.view.grid')}
          </button>{' '}
          <button type="button" aria-pressed={view === 'list'} onClick={() => setView('list')}>
            {t('media.view.list')}
          </button>
        </div>
      </div>
      {error && <p role="alert">{t('app.error', { message: error })}</p>}
      <div class={open && !onPick ? 'media-split' : undefined}>
        {items === null ? (
          <p aria-live="polite">{t('app.loading')}</p>
        ) : items.length === 0 ? (
          <p>{t('media.empty')}</p>
        ) : (
          <ul class={view === 'grid' ? 'media-grid' : 'media-list'} aria-label={t('media.items')}>
            {items.map((item) => (
              <li key={item.id} data-media={item.id}>
                <button
                  type="button"
                  class="media-tile"
                  aria-pressed={open?.id === item.id}
                  onClick={() => (onPick ? onPick(item) : setOpen(item))}
                >
                  {item.type === 'image' ? (
                    <img src={thumbOf(item)} alt="" loading="lazy" />
                  ) : (
                    <span class="file-type">{item.type}</span>
                  )}
                  <span class="media-name">{item.file_name}</span>
                  {view === 'list' && (
                    <span class="help">
                      {item.width && item.height ? `${item.width} × ${item.height} · ` : ''}
                      {sizeOf(item.size)} · {formatDateTime(item.created_at)}
                    </span>
                  )}
                </button>
              </li>
            ))}
          </ul>
        )}
        {open && !onPick && (
          <Detail
            item={open}
            onChanged={(changed) => {
              setOpen(changed);
              list.setData(
                (current) =>
                  current && {
                    ...current,
                    items: current.items.map((item) => (item.id === changed.id ? changed : item)),
                  },
              );
            }}
            onDeleted={() => {
              setOpen(null);
              list.reload();
            }}
          />
        )}
      </div>
      <Pager page={page} pages={pages} onPage={setPage} />
    </div>
  );
}

export function MediaScreen() {
  return (
    <section aria-labelledby="media-title">
      <h1 id="media-title">{t('media.title')}</h1>
      <MediaLibrary />
    </section>
  );
}

/** The library in a modal dialog, to choose an image (the editor's images and thumbnail). */
/**
 * The media library as a dialog an editor opens and awaits: `pick()` resolves with the chosen item (null
 * when closed), `pickImage()` with what the rich-text editor inserts; `dialog` is rendered where it goes.
 */
export function useMediaPicker() {
  const [picking, setPicking] = useState<((item: MediaItem | null) => void) | null>(null);
  const pick = () => new Promise<MediaItem | null>((resolve) => setPicking(() => resolve));
  const pickImage = async () => {
    const item = await pick();
    return item && { src: item.url, alt: item.alt ?? '' };
  };
  const answer = (item: MediaItem | null) => {
    picking?.(item);
    setPicking(null);
  };
  const dialog = picking ? <MediaPicker onPick={answer} onClose={() => answer(null)} /> : null;
  return { pick, pickImage, dialog };
}

export function MediaPicker({ onPick, onClose }: { onPick: (item: MediaItem) => void; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  return (
    <dialog ref={dialog} class="media-picker" aria-labelledby="media-picker-title" onClose={onClose}>
      <div class="screen-head">
        <h2 id="media-picker-title">{t('media.pick')}</h2>
        <button type="button" onClick={() => dialog.current?.close()}>
          {t('editor.url.cancel')}
        </button>
      </div>
      <MediaLibrary
        onPick={(item) => {
          onPick(item);
          dialog.current?.close();
        }}
      />
    </dialog>
  );
}
