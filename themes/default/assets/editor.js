/* global document, window, fetch, URLSearchParams, setTimeout, clearTimeout */
// The post editor's extras: a small Markdown toolbar and a live preview of the content as it will be
// stored (POST /post/preview answers the sanitized HTML). Without JavaScript the form works the same.
document.addEventListener('DOMContentLoaded', () => {
  const form = document.querySelector('form[data-editor]');
  if (!form) return;
  const textarea = form.querySelector('textarea[name="content"]');
  const toolbar = form.querySelector('[data-editor-toolbar]');
  const preview = form.querySelector('[data-editor-preview]');
  const previewBody = form.querySelector('[data-editor-preview-body]');
  const token = form.querySelector('input[name="_token"]');
  if (!textarea || !toolbar || !preview || !previewBody) return;

  const format = () => form.querySelector('input[name="format"]:checked')?.value ?? 'html';

  // [label, text before the selection, text after it, placeholder when nothing is selected, line start]
  // The words come from the page (the theme's catalogue in the page's locale): data-label-{name} and
  // data-sample-{name} on the toolbar.
  const words = toolbar.dataset;
  const actions = [
    ['bold', '**', '**'],
    ['italic', '*', '*'],
    ['heading', '## ', '', true],
    ['link', '[', '](https://)'],
    ['list', '- ', '', true],
    ['quote', '> ', '', true],
    ['code', '`', '`'],
  ];
  for (const [name, before, after, lineStart] of actions) {
    const label = words[`label${name[0].toUpperCase()}${name.slice(1)}`] ?? name;
    const placeholder = words[`sample${name[0].toUpperCase()}${name.slice(1)}`] ?? name;
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = label;
    button.addEventListener('click', () => {
      const { selectionStart: start, selectionEnd: end, value } = textarea;
      const selected = value.slice(start, end) || placeholder;
      // Line marks (heading, list, quote) go at the start of a line.
      const prefix = lineStart && start > 0 && value[start - 1] !== '\n' ? `\n${before}` : before;
      textarea.setRangeText(`${prefix}${selected}${after}`, start, end, 'end');
      textarea.setSelectionRange(start + prefix.length, start + prefix.length + selected.length);
      textarea.focus();
      schedule();
    });
    toolbar.append(button);
  }

  let timer = null;
  let sent = 0;
  async function refresh() {
    const ticket = ++sent;
    const body = new URLSearchParams({ content: textarea.value, format: format() });
    if (token) body.set('_token', token.value);
    try {
      const response = await fetch(form.dataset.preview, {
        method: 'POST',
        body,
        credentials: 'same-origin',
        headers: { accept: 'application/json' },
      });
      const answer = await response.json();
      // An older answer arriving late must not replace a newer one.
      if (ticket !== sent || answer.status !== 'success') return;
      // Sanitized by the server exactly as the post will be.
      previewBody.innerHTML = answer.data.html;
    } catch {
      preview.hidden = true;
    }
  }
  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(refresh, 400);
  }
  function show() {
    toolbar.hidden = format() !== 'markdown';
    preview.hidden = false;
    schedule();
  }
  textarea.addEventListener('input', schedule);
  for (const radio of form.querySelectorAll('input[name="format"]')) radio.addEventListener('change', show);
  if (window.fetch) show();
});
