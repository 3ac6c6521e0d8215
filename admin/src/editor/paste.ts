// Pasted HTML from Word, Google Docs and web pages, cleaned before the editor reads it: their
// styling, classes, comments and office markup go; bold and italics written as styles (Google Docs)
// become <strong> and <em>; Word's paragraphs styled as list items become real lists; the blank
// paragraphs Word adds between paragraphs go. The editor's schema then keeps only what it knows, and
// the server sanitizes again on save.

/** Elements dropped with everything inside them. */
const DROPPED = 'style, script, meta, link, title, xml, template, head';
/** Google Docs wraps a whole paste in one bold element that is not bold. */
const GOOGLE_DOCS_WRAPPER = 'b[id^="docs-internal-guid"]';
/** Attributes the editor has a use for; every other one is removed. */
const KEPT_ATTRIBUTES: Record<string, string[]> = {
  A: ['href', 'title'],
  IMG: ['src', 'alt', 'title', 'width', 'height'],
  TD: ['colspan', 'rowspan'],
  TH: ['colspan', 'rowspan'],
  OL: ['start'],
};

function unwrap(element: Element): void {
  element.replaceWith(...Array.from(element.childNodes));
}

function rename(element: Element, tag: string): Element {
  const replacement = element.ownerDocument.createElement(tag);
  replacement.append(...Array.from(element.childNodes));
  element.replaceWith(replacement);
  return replacement;
}

/** A Word paragraph written as a list item (`mso-list` in its style, or a MsoListParagraph class). */
function wordListItem(element: Element): 'ul' | 'ol' | null {
  if (element.tagName !== 'P') return null;
  const style = element.getAttribute('style') ?? '';
  if (!/mso-list\s*:/i.test(style) && !/^MsoListParagraph/i.test(element.className)) return null;
  // Word writes the bullet or number as text in a span marked mso-list:Ignore.
  const marker = element.querySelector('[style*="mso-list"][style*="Ignore" i]');
  const text = marker?.textContent?.trim() ?? '';
  marker?.remove();
  return /^[\dA-Za-z]{1,3}[.)]$/.test(text) ? 'ol' : 'ul';
}

/** Consecutive Word list paragraphs become one <ul> or <ol> of <li>. */
function rebuildWordLists(body: HTMLElement): void {
  let list: Element | null = null;
  let kind: string | null = null;
  for (const paragraph of Array.from(body.querySelectorAll('p'))) {
    const itemKind = wordListItem(paragraph);
    if (!itemKind) {
      list = null;
      continue;
    }
    const previous = paragraph.previousElementSibling;
    if (!list || kind !== itemKind || previous !== list) {
      list = body.ownerDocument.createElement(itemKind);
      kind = itemKind;
      paragraph.before(list);
    }
    const item = body.ownerDocument.createElement('li');
    item.append(...Array.from(paragraph.childNodes));
    list.append(item);
    paragraph.remove();
  }
}

/** Bold and italic given as inline styles (Google Docs' way) become elements. */
function stylesToElements(body: HTMLElement): void {
  for (const span of Array.from(body.querySelectorAll('span[style]'))) {
    const style = span.getAttribute('style') ?? '';
    let target: Element = span;
    if (/font-weight\s*:\s*(bold|[6-9]00)/i.test(style)) {
      const strong = span.ownerDocument.createElement('strong');
      strong.append(...Array.from(target.childNodes));
      target.append(strong);
      target = strong;
    }
    if (/font-style\s*:\s*italic/i.test(style)) {
      const em = span.ownerDocument.createElement('em');
      em.append(...Array.from(target.childNodes));
      target.append(em);
    }
  }
}

function removeComments(doc: Document): void {
  const walker = doc.createTreeWalker(doc, NodeFilter.SHOW_COMMENT);
  const comments: Node[] = [];
  while (walker.nextNode()) comments.push(walker.currentNode);
  for (const comment of comments) comment.parentNode?.removeChild(comment);
}

/** The HTML of a paste, cleaned (see the top of this file). */
export function cleanPastedHtml(html: string): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  const body = doc.body;
  removeComments(doc);
  for (const element of Array.from(doc.querySelectorAll(DROPPED))) element.remove();
  for (const wrapper of Array.from(body.querySelectorAll(GOOGLE_DOCS_WRAPPER))) unwrap(wrapper);
  rebuildWordLists(body);
  stylesToElements(body);
  // Office namespaced elements (<o:p>, <w:sdt>…) and presentational wrappers keep their text only.
  for (const element of Array.from(body.querySelectorAll('*'))) {
    if (element.tagName.includes(':') || ['FONT', 'SPAN', 'DIV'].includes(element.tagName)) {
      if (element.tagName === 'DIV' && element.querySelector('p, h1, h2, h3, ul, ol, table')) unwrap(element);
      else if (element.tagName === 'DIV') rename(element, 'p');
      else unwrap(element);
    }
  }
  for (const element of Array.from(body.querySelectorAll('*'))) {
    const kept = KEPT_ATTRIBUTES[element.tagName] ?? [];
    for (const name of element.getAttributeNames()) {
      if (!kept.includes(name)) element.removeAttribute(name);
    }
  }
  // Word's empty paragraphs between paragraphs (a non-breaking space, or nothing).
  for (const paragraph of Array.from(body.querySelectorAll('p'))) {
    if (
      (paragraph.textContent ?? '').replace(/\u00a0/g, ' ').trim() === '' &&
      !paragraph.querySelector('img')
    ) {
      paragraph.remove();
    }
  }
  return body.innerHTML.trim();
}
