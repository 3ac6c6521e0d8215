// The words of the post and page editors' saving, conflicts and review notes (issue 34 #14, #15, #18).
// Spread into the English catalogue in i18n.ts.
export const editorMessages = {
  'editor.trouble':
    'Not saved: the server cannot be reached. Trying again in {seconds} s; your changes are kept in this browser meanwhile.',
  'editor.trouble.status':
    'Not saved: the server is not available ({status}). Trying again in {seconds} s; your changes are kept in this browser meanwhile.',
  'editor.trouble.retry': 'Try again now',
  'editor.trouble.state': 'Not saved yet',
  'editor.network': 'The server could not be reached: nothing was changed. Try again.',
  'editor.network.load': 'The server could not be reached: the post could not be loaded. Reload the page.',
  'editor.conflict.fields': 'Keeping yours replaces their version of: {fields}.',
  'editor.returned.title': 'Sent back for changes',
  'editor.returned.by': '{name} sent this post back on {time}:',
  'editor.returned.someone': 'An editor',
};
