// One tab per locale over a form's translatable fields (posts and pages), each saying when its
// locale is still missing; the panel under them is labelled by the chosen tab.
import type { ComponentChildren } from 'preact';
import { t } from '../i18n.js';

/** A Folio locale key (`zh_TW`) as an HTML `lang` (`zh-TW`). */
export const bcp47 = (code: string) => code.replace(/_/g, '-');

/** "Chinese (Taiwan) · zh_TW", in the editor's own language. */
export function localeName(code: string): string {
  try {
    const name = new Intl.DisplayNames([navigator.language], { type: 'language' }).of(bcp47(code));
    return name && name !== code ? `${name} · ${code}` : code;
  } catch {
    return code;
  }
}

/** HTML reduced to whether it holds any text (a blank editor still holds `<p></p>`). */
export const hasText = (html: string) => html.replace(/<[^>]*>/g, '').trim() !== '';

interface Props {
  locales: string[];
  current: string;
  missing: string[];
  onChoose: (locale: string) => void;
  children: ComponentChildren;
}

export function LocaleTabs({ locales, current, missing, onChoose, children }: Props) {
  if (locales.length < 2) return <div id="locale-panel">{children}</div>;
  return (
    <>
      <div class="tabs" role="tablist" aria-label={t('editor.locales')}>
        {locales.map((code) => (
          <button
            key={code}
            type="button"
            role="tab"
            id={`tab-${code}`}
            aria-selected={code === current}
            aria-controls="locale-panel"
            class={code === current ? 'tab current' : 'tab'}
            onClick={() => onChoose(code)}
          >
            {localeName(code)}
            {missing.includes(code) && <span class="missing"> ({t('editor.locale.missing')})</span>}
          </button>
        ))}
      </div>
      <div id="locale-panel" role="tabpanel" aria-labelledby={`tab-${current}`}>
        {children}
      </div>
    </>
  );
}
