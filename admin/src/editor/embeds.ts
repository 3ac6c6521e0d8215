// Videos embedded by their page's URL: YouTube through TipTap's own extension (privacy-enhanced
// youtube-nocookie.com player), Vimeo through the small node below (TipTap ships none). Both render
// as a <div data-…-video> around an <iframe>, which the server's sanitizer lets through for these
// players' hosts only.
import { Node, mergeAttributes } from '@tiptap/core';

/** The Vimeo player URL of a Vimeo page or player URL, or null. */
export function vimeoPlayerUrl(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (!/^(www\.|player\.)?vimeo\.com$/.test(parsed.hostname)) return null;
  const id = /(?:^|\/)(\d{5,12})(?:\/|$)/.exec(parsed.pathname)?.[1];
  return id ? `https://player.vimeo.com/video/${id}` : null;
}

export function isYoutubeUrl(url: string): boolean {
  try {
    return /^(www\.|m\.)?(youtube\.com|youtu\.be|youtube-nocookie\.com)$/.test(new URL(url).hostname);
  } catch {
    return false;
  }
}

declare module '@tiptap/core' {
  interface Commands<ReturnType> {
    vimeo: {
      /** Inserts the player of a Vimeo URL (false when it is not one). */
      setVimeoVideo: (url: string) => ReturnType;
    };
  }
}

export const Vimeo = Node.create({
  name: 'vimeo',
  group: 'block',
  atom: true,
  draggable: true,
  addAttributes() {
    return { src: { default: null } };
  },
  parseHTML() {
    return [
      {
        tag: 'div[data-vimeo-video] iframe',
        getAttrs: (element) => {
          const src = vimeoPlayerUrl(element.getAttribute('src') ?? '');
          return src ? { src } : false;
        },
      },
    ];
  },
  renderHTML({ HTMLAttributes }) {
    return [
      'div',
      { 'data-vimeo-video': '' },
      [
        'iframe',
        mergeAttributes(HTMLAttributes, {
          width: 640,
          height: 360,
          allowfullscreen: 'true',
          title: 'Vimeo video',
          loading: 'lazy',
        }),
      ],
    ];
  },
  addCommands() {
    return {
      setVimeoVideo:
        (url) =>
        ({ commands }) => {
          const src = vimeoPlayerUrl(url);
          return src !== null && commands.insertContent({ type: this.name, attrs: { src } });
        },
    };
  },
});
