// The rich-text editor of posts and pages: TipTap (ProseMirror) with headings, lists, quotes, code,
// links, images, tables and YouTube/Vimeo embeds; Markdown shortcuts as you type (`## `, `- `, `> `,
// `**bold**`…, TipTap's input rules); pastes cleaned (paste.ts). The toolbar is a row of buttons that
// say what they do to screen readers and show which marks are on.
import { Editor } from '@tiptap/core';
import Image from '@tiptap/extension-image';
import Placeholder from '@tiptap/extension-placeholder';
import { TableKit } from '@tiptap/extension-table';
import Youtube from '@tiptap/extension-youtube';
import StarterKit from '@tiptap/starter-kit';
import { useEffect, useRef, useState } from 'preact/hooks';
import { t } from '../i18n.js';
import { shownHtml, shownUrl } from '../media-url.js';
import type { MessageKey } from '../i18n.js';
import { Vimeo, isYoutubeUrl } from './embeds.js';
import { cleanPastedHtml } from './paste.js';

interface Props {
  /** The HTML to start with (the component is keyed by its parent to start again). */
  initial: string;
  onChange: (html: string) => void;
  /** The id of the element that labels the editing area. */
  labelledBy: string;
  lang?: string;
  /** Opens the media library; resolves with the chosen image (null: none chosen). */
  pickImage?: () => Promise<{ src: string; alt: string } | null>;
}

type UrlKind = 'link' | 'image' | 'video';

function httpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

export function RichText({ initial, onChange, labelledBy, lang, pickImage }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const [editor, setEditor] = useState<Editor | null>(null);
  const [, setTick] = useState(0);
  const [asking, setAsking] = useState<UrlKind | null>(null);
  const [url, setUrl] = useState('');
  const [urlError, setUrlError] = useState('');
  const changed = useRef(onChange);
  changed.current = onChange;

  useEffect(() => {
    const instance = new Editor({
      element: host.current!,
      // This installation's images by their path, on whatever domain the panel is open (media-url.ts).
      content: shownHtml(initial),
      // The admin's CSP allows no inline <style>: ProseMirror's base rules are in styles.css.
      injectCSS: false,
      extensions: [
        StarterKit.configure({
          heading: { levels: [2, 3, 4] },
          link: { openOnClick: false, autolink: true, protocols: ['mailto'], defaultProtocol: 'https' },
        }),
        Image,
        TableKit.configure({ table: { resizable: false } }),
        Youtube.configure({ nocookie: true, controls: true }),
        Vimeo,
        Placeholder.configure({ placeholder: t('editor.placeholder') }),
      ],
      editorProps: {
        transformPastedHTML: cleanPastedHtml,
        attributes: {
          role: 'textbox',
          'aria-multiline': 'true',
          'aria-labelledby': labelledBy,
          class: 'prose',
          ...(lang ? { lang } : {}),
        },
      },
      onUpdate: ({ editor: current }) => changed.current(current.getHTML()),
      // The toolbar shows which marks are on where the cursor is.
      onTransaction: () => setTick((tick) => tick + 1),
    });
    setEditor(instance);
    return () => instance.destroy();
  }, []);

  const ask = (kind: UrlKind) => {
    setAsking(kind);
    setUrl(kind === 'link' ? ((editor?.getAttributes('link').href as string | undefined) ?? '') : '');
    setUrlError('');
    dialog.current?.showModal();
  };

  const submitUrl = (event: Event) => {
    event.preventDefault();
    if (!editor || !asking) return;
    const text = url.trim();
    const chain = editor.chain().focus();
    if (asking === 'link' && text === '') {
      chain.extendMarkRange('link').unsetLink().run();
    } else if (!httpUrl(text) && !(asking === 'link' && text.startsWith('mailto:'))) {
      return setUrlError(t('editor.url.invalid'));
    } else if (asking === 'link') {
      chain.extendMarkRange('link').setLink({ href: text }).run();
    } else if (asking === 'image') {
      chain.setImage({ src: text }).run();
    } else if (isYoutubeUrl(text)) {
      chain.setYoutubeVideo({ src: text }).run();
    } else if (!chain.setVimeoVideo(text).run()) {
      return setUrlError(t('editor.video.invalid'));
    }
    dialog.current?.close();
    setAsking(null);
  };

  const button = (label: MessageKey, run: () => void, active = false, text?: string) => (
    <button
      type="button"
      class="tool"
      title={t(label)}
      aria-pressed={active}
      disabled={!editor}
      onMouseDown={(event) => event.preventDefault()}
      onClick={run}
    >
      <span aria-hidden="true">{text ?? t(label)}</span>
      <span class="visually-hidden">{t(label)}</span>
    </button>
  );
  const on = (name: string, attributes?: Record<string, unknown>) =>
    editor?.isActive(name, attributes) ?? false;
  const chain = () => editor!.chain().focus();

  // Ctrl+K (⌘K) in the editor opens the link prompt, as the toolbar's Link does (issue 34 #20).
  const onKeyDown = (event: KeyboardEvent) => {
    if (!(event.ctrlKey || event.metaKey) || event.altKey || event.key.toLowerCase() !== 'k') return;
    if (!(event.target as Element | null)?.closest?.('.ProseMirror')) return; // not in the link prompt itself
    event.preventDefault();
    ask('link');
  };

  return (
    <div class="rich-text" onKeyDown={onKeyDown}>
      <div class="toolbar" role="toolbar" aria-label={t('editor.toolbar')}>
        {button('editor.bold', () => chain().toggleBold().run(), on('bold'), 'B')}
        {button('editor.italic', () => chain().toggleItalic().run(), on('italic'), 'I')}
        {button(
          'editor.heading2',
          () => chain().toggleHeading({ level: 2 }).run(),
          on('heading', { level: 2 }),
          'H2',
        )}
        {button(
          'editor.heading3',
          () => chain().toggleHeading({ level: 3 }).run(),
          on('heading', { level: 3 }),
          'H3',
        )}
        {button('editor.bullets', () => chain().toggleBulletList().run(), on('bulletList'), '•')}
        {button('editor.numbers', () => chain().toggleOrderedList().run(), on('orderedList'), '1.')}
        {button('editor.quote', () => chain().toggleBlockquote().run(), on('blockquote'), '\u201c')}
        {button('editor.code', () => chain().toggleCodeBlock().run(), on('codeBlock'), '</>')}
        {button('editor.link', () => ask('link'), on('link'))}
        {pickImage &&
          button('editor.library', () => {
            void pickImage().then((image) => {
              if (image)
                editor
                  ?.chain()
                  .focus()
                  .setImage({ ...image, src: shownUrl(image.src) })
                  .run();
            });
          })}
        {button('editor.image', () => ask('image'))}
        {button('editor.video', () => ask('video'), false, t('editor.video.short'))}
        {button(
          'editor.table',
          () => chain().insertTable({ rows: 3, cols: 3, withHeaderRow: true }).run(),
          on('table'),
          '\u25a6',
        )}
        {on('table') && button('editor.table.row', () => chain().addRowAfter().run(), false, '+row')}
        {on('table') && button('editor.table.column', () => chain().addColumnAfter().run(), false, '+col')}
        {on('table') &&
          button('editor.table.delete', () => chain().deleteTable().run(), false, '\u2212table')}
        {button('editor.undo', () => chain().undo().run(), false, '\u21b6')}
        {button('editor.redo', () => chain().redo().run(), false, '\u21b7')}
      </div>
      <div ref={host} class="editing-area" />
      <dialog
        ref={dialog}
        class="url-dialog"
        aria-labelledby="url-dialog-title"
        onClose={() => setAsking(null)}
      >
        <form method="dialog" onSubmit={submitUrl}>
          <h2 id="url-dialog-title">{asking && t(`editor.${asking}.title` as MessageKey)}</h2>
          <label for="url-dialog-input">{t('editor.url')}</label>
          <input
            id="url-dialog-input"
            type="text"
            inputMode="url"
            value={url}
            aria-invalid={urlError !== ''}
            aria-describedby={urlError ? 'url-dialog-error' : undefined}
            onInput={(event) => setUrl(event.currentTarget.value)}
          />
          {urlError && (
            <p id="url-dialog-error" class="field-error">
              {urlError}
            </p>
          )}
          <div class="actions">
            <button type="submit" class="primary">
              {t('editor.url.apply')}
            </button>
            <button type="button" onClick={() => dialog.current?.close()}>
              {t('editor.url.cancel')}
            </button>
          </div>
        </form>
      </dialog>
    </div>
  );
}
