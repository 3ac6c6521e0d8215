// Markdown for the public post editor (issue 22, dead end 8): markdown-it turns what a writer typed
// into HTML (a blank line starts a paragraph, a single line break stays a line break), and the
// result always goes through the site's HTML sanitizer, whoever wrote it: HTML typed inside the
// Markdown (a `<script>`, an `onerror`) gets no further than it would in an HTML post.
import type MarkdownIt from 'markdown-it';
import { lazyModule } from '../../lib/lazy-module.js';
import { sanitizePostHtml } from './html-sanitizer.js';

export const CONTENT_FORMATS = ['markdown', 'html'] as const;
export type ContentFormat = (typeof CONTENT_FORMATS)[number];

/** The renderer, made at the first Markdown post (markdown-it is loaded then: lazy-module.ts). */
const markdown = lazyModule<typeof MarkdownIt>('markdown-it');
let renderer: InstanceType<typeof MarkdownIt> | null = null;

function markdownRenderer(): InstanceType<typeof MarkdownIt> {
  if (renderer) return renderer;
  const Renderer = markdown();
  const made = new Renderer({
    // HTML inside Markdown is kept for the sanitizer to judge (a pasted table, a <figure>), not escaped.
    html: true,
    // Bare web addresses become links.
    linkify: true,
    // People who type plain text expect a new line to stay one.
    breaks: true,
    typographer: false,
  });
  // The page's <h1> is the post's title (and the sanitizer drops h1): a `# Heading` becomes an h2.
  made.core.ruler.push('folio_demote_h1', (state) => {
    for (const token of state.tokens) {
      if ((token.type === 'heading_open' || token.type === 'heading_close') && token.tag === 'h1') {
        token.tag = 'h2';
      }
    }
  });
  return (renderer = made);
}

/** Markdown as sanitized HTML, ready to store as a post's content. */
export function markdownToHtml(text: string): string {
  return sanitizePostHtml(markdownRenderer().render(text.replace(/\r\n?/g, '\n'))).trim();
}
