// The words of the panel's frame and of issue 34 #19/#20: the access state, the header's sign-out and
// phone menu, one post's status (singular), the editors' shortcuts and word count, the comments'
// replies. Spread into the English catalogue in i18n.ts.
export const panelMessages = {
  'app.noaccess.title': 'You do not have access',
  'app.noaccess':
    'Your role on this website does not let you use this screen. Ask one of its administrators if you need it.',
  'app.noaccess.back': 'Back to the dashboard',
  'app.signout': 'Sign out',
  'app.menu': 'Menu',
  'app.language': 'Language',
  'app.nav': 'Admin',
  'post.status.draft': 'Draft',
  'post.status.pending': 'Waiting for review',
  'post.status.published': 'Published',
  'post.status.scheduled': 'Scheduled',
  'post.status.new': 'New',
  'editor.readonly': 'You may read this post but not change it.',
  'editor.word': '1 word',
  'editor.words': '{n} words',
  'editor.shortcuts': 'Ctrl+S saves, Ctrl+K adds a link.',
  'pages.readonly': 'You may read this page but not change it.',
  'menus.readonly': 'You may see this menu but not change it.',
  'comments.reply_to': 'In reply to {name}:',
  'settings.is_default': '(default)',
  'settings.default': 'Not set to one of the roles: new registrations get the default, {value}.',
  'settings.registration_role.reader': 'Reader (comments, a profile)',
  'settings.registration_role.contributor': 'Contributor (submits drafts for review)',
  'settings.registration_role.author': 'Author (publishes at once)',
} as const;
