// What the editors share around their fields (issue 34 #20): Ctrl+S (⌘S) saves, as in every desktop
// editor, instead of the browser's "Save page"; and a word count of the content.
import { useEffect, useRef } from 'preact/hooks';
import { t } from './i18n.js';

/** Ctrl+S / ⌘S anywhere on the screen runs `save` (when given: null while saving is not allowed). */
export function useSaveShortcut(save: (() => void) | null): void {
  const latest = useRef(save);
  latest.current = save;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || event.altKey || event.key.toLowerCase() !== 's') return;
      event.preventDefault();
      latest.current?.();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
}

const segmenter =
  typeof Intl.Segmenter === 'function' ? new Intl.Segmenter(undefined, { granularity: 'word' }) : null;

/** The words of an HTML text (words of languages written without spaces counted as the browser splits them). */
export function wordCount(html: string): number {
  const text = new DOMParser().parseFromString(html, 'text/html').body.textContent ?? '';
  if (!segmenter) return text.split(/\s+/).filter((word) => word !== '').length;
  let words = 0;
  for (const segment of segmenter.segment(text)) if (segment.isWordLike) words++;
  return words;
}

/** "1 word", "12 words": the count the editors show under their content. */
export function wordCountText(html: string): string {
  const n = wordCount(html);
  return n === 1 ? t('editor.word') : t('editor.words', { n });
}
