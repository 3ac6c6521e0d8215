// Every mail Folio sends, in the recipient's language (issue 41 #3): English, Traditional Chinese
// (Taiwan), Simplified Chinese (mainland) and Japanese. A mail to an account is written in the language
// its owner chose (users.locale); a mail to an address with no account yet (a registration, an
// invitation, a new email address) in the language of the page it was asked from, else the site's
// default locale. Messages are ICU-style (lib/messages.ts); the English ones are the mails' words
// as they always were.
import { CATALOGUE_LOCALES, formatMessage, matchLocale } from '../../lib/messages.js';
import type { MessageVars } from '../../lib/messages.js';

const en = {
  'register_exists.subject': 'Someone tried to register with your address on {site}',
  'register_exists.text':
    'Hello {name},\n\n' +
    'Someone tried to create an account on {site} with your address. You already have one, so nothing was created.\n' +
    'If that was you, you can log in or reset your password: {reset}\n\n' +
    'Log in: {login}\n\n' +
    'If it was not you, ignore this message: your account stays as it is.\n',
  'register.subject': 'Finish creating your account on {site}',
  'register.text':
    'Hello,\n\n' +
    'Someone (hopefully you) asked to create an account on {site} with this address.\n' +
    'To finish, open this link within {minutes} minutes:\n\n{link}\n\n' +
    'The link works once. If you did not ask for it, ignore this message: no account is created.\n',
  'email_taken.subject': 'Someone tried to use your address on {site}',
  'email_taken.text':
    'Hello,\n\nSomeone asked to move another account on {site} to this address. ' +
    'It already belongs to your account, so nothing changed.\n' +
    'If that was you, sign in to your account with this address instead.\n',
  'email_change.subject': 'Confirm your new email address on {site}',
  'email_change.text':
    'Hello,\n\nSomeone (hopefully you) asked to use this address for an account on {site}.\n' +
    'To confirm, open this link within {minutes} minutes:\n\n{link}\n\n' +
    'If you did not ask for it, ignore this message: nothing changes.\n',
  'reset.subject': 'Reset your password on {site}',
  'reset.text':
    'Hello {name},\n\n' +
    'Someone (hopefully you) asked to reset the password of your account on {site}.\n' +
    'To choose a new password, open this link within {minutes} minutes:\n\n{link}\n\n' +
    'The link works once. If you did not ask for it, ignore this message: your password stays as it is.\n',
  'moved_in.subject': 'Your account on {site} is ready: choose a password',
  'moved_in.text':
    'Hello {name},\n\n' +
    '{site} has moved to a new home, and your account came along with what you wrote.\n' +
    'To choose your password, open this link within {days} days:\n\n{link}\n\n' +
    'The link works once. Until you choose a password, nobody can sign in to your account.\n',
  'comment_held.subject': 'A comment waits for approval on {site}',
  'comment_held.text':
    'A comment on {site} waits for your approval' +
    '{waiting, plural, =0 {.} =1 {.} other { ({waiting} comments wait on this website).}}\n\n' +
    'From: {author}\n\n{quote}\n\n' +
    'Approve, mark as spam or delete it on the post page (signed in), where the waiting comments ' +
    'are listed above the thread:\n{post_url}#moderation\n\n' +
    'or in the admin panel: {admin_url}\n',
  'invite.subject': 'Your invitation to {domain}',
  'invite.text':
    'Hello,\n\nYou are invited to join \u201c{site}\u201d ({domain}) as {role}.\n' +
    'To accept, open this link within {days} days:\n\n' +
    '{link}\n\nThe link works once. If you did not expect it, ignore this message.\n',
  'role.site_admin': 'site admin',
  'role.editor': 'editor',
  'role.author': 'author',
  'role.contributor': 'contributor',
  'role.reader': 'reader',
  'test.subject': 'Folio test mail',
  'test.text':
    "Hello {name},\n\nThis is a test mail from Folio, sent from the admin panel's mail settings.\n" +
    'If you read it, mail reaches you.\n',
} as const;

export type MailKey = keyof typeof en;
type Catalogue = Record<MailKey, string>;

const zh_TW: Catalogue = {
  'register_exists.subject': '有人嘗試以您的電子郵件在 {site} 註冊',
  'register_exists.text':
    '{name} 您好：\n\n' +
    '有人嘗試以您的電子郵件在 {site} 建立帳號。由於您已經有帳號，因此沒有建立新的帳號。\n' +
    '如果是您本人，可以直接登入或重設密碼：{reset}\n\n' +
    '登入：{login}\n\n' +
    '如果不是您本人，請忽略這封信，您的帳號不會有任何變動。\n',
  'register.subject': '完成在 {site} 建立帳號',
  'register.text':
    '您好：\n\n' +
    '有人（希望是您）要求以這個電子郵件在 {site} 建立帳號。\n' +
    '請在 {minutes} 分鐘內開啟以下連結完成註冊：\n\n{link}\n\n' +
    '連結只能使用一次。如果您沒有提出這項要求，請忽略這封信，不會建立任何帳號。\n',
  'email_taken.subject': '有人嘗試在 {site} 使用您的電子郵件',
  'email_taken.text':
    '您好：\n\n有人要求將 {site} 上的另一個帳號改用這個電子郵件。' +
    '由於這個電子郵件已屬於您的帳號，因此沒有做任何變更。\n' +
    '如果是您本人，請改用這個電子郵件登入您的帳號。\n',
  'email_change.subject': '確認您在 {site} 的新電子郵件',
  'email_change.text':
    '您好：\n\n有人（希望是您）要求在 {site} 的帳號改用這個電子郵件。\n' +
    '請在 {minutes} 分鐘內開啟以下連結確認：\n\n{link}\n\n' +
    '如果您沒有提出這項要求，請忽略這封信，不會有任何變更。\n',
  'reset.subject': '重設您在 {site} 的密碼',
  'reset.text':
    '{name} 您好：\n\n' +
    '有人（希望是您）要求重設您在 {site} 的帳號密碼。\n' +
    '請在 {minutes} 分鐘內開啟以下連結設定新密碼：\n\n{link}\n\n' +
    '連結只能使用一次。如果您沒有提出這項要求，請忽略這封信，您的密碼不會變更。\n',
  'moved_in.subject': '您在 {site} 的帳號已準備好：請設定密碼',
  'moved_in.text':
    '{name} 您好：\n\n' +
    '{site} 已經搬到新家，您的帳號和您寫的文章也一起搬過來了。\n' +
    '請在 {days} 天內開啟以下連結設定密碼：\n\n{link}\n\n' +
    '連結只能使用一次。在您設定密碼之前，任何人都無法登入您的帳號。\n',
  'comment_held.subject': '{site} 有一則留言等待核准',
  'comment_held.text':
    '{site} 有一則留言等待您核准' +
    '{waiting, plural, =0 {。} =1 {。} other {（這個網站共有 {waiting} 則留言等待核准）。}}\n\n' +
    '留言者：{author}\n\n{quote}\n\n' +
    '請在文章頁面（登入後）核准、標記為垃圾訊息或刪除，等待核准的留言會列在留言串上方：\n{post_url}#moderation\n\n' +
    '或前往管理後台：{admin_url}\n',
  'invite.subject': '您收到加入 {domain} 的邀請',
  'invite.text':
    '您好：\n\n您受邀以{role}身分加入「{site}」（{domain}）。\n' +
    '請在 {days} 天內開啟以下連結接受邀請：\n\n' +
    '{link}\n\n連結只能使用一次。如果您沒有預期收到這封信，請直接忽略。\n',
  'role.site_admin': '網站管理員',
  'role.editor': '編輯',
  'role.author': '作者',
  'role.contributor': '投稿者',
  'role.reader': '讀者',
  'test.subject': 'Folio 測試郵件',
  'test.text':
    '{name} 您好：\n\n這是從管理後台的郵件設定寄出的 Folio 測試郵件。\n如果您收到這封信，表示郵件可以正常寄達。\n',
};

const zh_CN: Catalogue = {
  'register_exists.subject': '有人尝试用您的邮箱在 {site} 注册',
  'register_exists.text':
    '{name}，您好：\n\n' +
    '有人尝试用您的邮箱在 {site} 注册账号。由于您已经有账号，因此没有创建新账号。\n' +
    '如果是您本人，可以直接登录或重置密码：{reset}\n\n' +
    '登录：{login}\n\n' +
    '如果不是您本人，请忽略此邮件，您的账号不会有任何变化。\n',
  'register.subject': '完成在 {site} 的注册',
  'register.text':
    '您好：\n\n' +
    '有人（希望是您）申请用这个邮箱在 {site} 注册账号。\n' +
    '请在 {minutes} 分钟内打开以下链接完成注册：\n\n{link}\n\n' +
    '链接只能使用一次。如果不是您本人申请，请忽略此邮件，不会创建任何账号。\n',
  'email_taken.subject': '有人尝试在 {site} 使用您的邮箱',
  'email_taken.text':
    '您好：\n\n有人申请将 {site} 上的另一个账号改用这个邮箱。' +
    '由于这个邮箱已属于您的账号，因此没有做任何修改。\n' +
    '如果是您本人，请改用这个邮箱登录您的账号。\n',
  'email_change.subject': '确认您在 {site} 的新邮箱',
  'email_change.text':
    '您好：\n\n有人（希望是您）申请将 {site} 的账号改用这个邮箱。\n' +
    '请在 {minutes} 分钟内打开以下链接进行确认：\n\n{link}\n\n' +
    '如果不是您本人申请，请忽略此邮件，不会有任何修改。\n',
  'reset.subject': '重置您在 {site} 的密码',
  'reset.text':
    '{name}，您好：\n\n' +
    '有人（希望是您）申请重置您在 {site} 的账号密码。\n' +
    '请在 {minutes} 分钟内打开以下链接设置新密码：\n\n{link}\n\n' +
    '链接只能使用一次。如果不是您本人申请，请忽略此邮件，您的密码不会改变。\n',
  'moved_in.subject': '您在 {site} 的账号已准备好：请设置密码',
  'moved_in.text':
    '{name}，您好：\n\n' +
    '{site} 已经迁移到新平台，您的账号和您写的文章也一起迁移过来了。\n' +
    '请在 {days} 天内打开以下链接设置密码：\n\n{link}\n\n' +
    '链接只能使用一次。在您设置密码之前，任何人都无法登录您的账号。\n',
  'comment_held.subject': '{site} 有一条评论等待审核',
  'comment_held.text':
    '{site} 有一条评论等待您审核' +
    '{waiting, plural, =0 {。} =1 {。} other {（该网站共有 {waiting} 条评论等待审核）。}}\n\n' +
    '评论者：{author}\n\n{quote}\n\n' +
    '请在文章页面（登录后）通过、标记为垃圾评论或删除，待审核的评论列在评论区上方：\n{post_url}#moderation\n\n' +
    '或前往管理后台：{admin_url}\n',
  'invite.subject': '您收到加入 {domain} 的邀请',
  'invite.text':
    '您好：\n\n您受邀以{role}身份加入“{site}”（{domain}）。\n' +
    '请在 {days} 天内打开以下链接接受邀请：\n\n' +
    '{link}\n\n链接只能使用一次。如果您没有预料到这封邮件，请忽略。\n',
  'role.site_admin': '网站管理员',
  'role.editor': '编辑',
  'role.author': '作者',
  'role.contributor': '投稿者',
  'role.reader': '读者',
  'test.subject': 'Folio 测试邮件',
  'test.text':
    '{name}，您好：\n\n这是从管理后台的邮件设置发出的 Folio 测试邮件。\n如果您收到了这封邮件，说明邮件可以正常送达。\n',
};

const ja: Catalogue = {
  'register_exists.subject': '{site} であなたのメールアドレスを使った登録が試みられました',
  'register_exists.text':
    '{name} 様\n\n' +
    '{site} で、あなたのメールアドレスを使ってアカウントを作成しようとした人がいます。すでにアカウントをお持ちのため、何も作成されていません。\n' +
    'ご本人の場合は、ログインするかパスワードを再設定してください：{reset}\n\n' +
    'ログイン：{login}\n\n' +
    'お心当たりがない場合は、このメールを無視してください。アカウントはそのままです。\n',
  'register.subject': '{site} のアカウント作成を完了してください',
  'register.text':
    'こんにちは。\n\n' +
    '{site} で、このメールアドレスを使ったアカウントの作成が申し込まれました。\n' +
    '{minutes} 分以内に次のリンクを開いて手続きを完了してください：\n\n{link}\n\n' +
    'リンクは一度だけ使えます。お心当たりがない場合は、このメールを無視してください。アカウントは作成されません。\n',
  'email_taken.subject': '{site} であなたのメールアドレスを使おうとした人がいます',
  'email_taken.text':
    'こんにちは。\n\n{site} の別のアカウントをこのメールアドレスに変更する申し込みがありました。' +
    'このアドレスはすでにあなたのアカウントのものなので、何も変更されていません。\n' +
    'ご本人の場合は、このアドレスでご自分のアカウントにログインしてください。\n',
  'email_change.subject': '{site} の新しいメールアドレスを確認してください',
  'email_change.text':
    'こんにちは。\n\n{site} のアカウントでこのメールアドレスを使う申し込みがありました。\n' +
    '{minutes} 分以内に次のリンクを開いて確認してください：\n\n{link}\n\n' +
    'お心当たりがない場合は、このメールを無視してください。何も変更されません。\n',
  'reset.subject': '{site} のパスワード再設定',
  'reset.text':
    '{name} 様\n\n' +
    '{site} のアカウントのパスワード再設定が申し込まれました。\n' +
    '{minutes} 分以内に次のリンクを開いて新しいパスワードを設定してください：\n\n{link}\n\n' +
    'リンクは一度だけ使えます。お心当たりがない場合は、このメールを無視してください。パスワードは変わりません。\n',
  'moved_in.subject': '{site} のアカウントの準備ができました：パスワードを設定してください',
  'moved_in.text':
    '{name} 様\n\n' +
    '{site} は新しい場所に移転しました。あなたのアカウントと書いた記事も一緒に移されています。\n' +
    '{days} 日以内に次のリンクを開いてパスワードを設定してください：\n\n{link}\n\n' +
    'リンクは一度だけ使えます。パスワードを設定するまで、誰もあなたのアカウントにログインできません。\n',
  'comment_held.subject': '{site} に承認待ちのコメントがあります',
  'comment_held.text':
    '{site} のコメントがあなたの承認を待っています' +
    '{waiting, plural, =0 {。} =1 {。} other {（このサイトでは {waiting} 件のコメントが承認待ちです）。}}\n\n' +
    '投稿者：{author}\n\n{quote}\n\n' +
    '投稿のページ（ログイン時）で承認・スパム・削除ができます。承認待ちのコメントはコメント欄の上に表示されます：\n{post_url}#moderation\n\n' +
    '管理画面からも操作できます：{admin_url}\n',
  'invite.subject': '{domain} への招待',
  'invite.text':
    'こんにちは。\n\n「{site}」（{domain}）に{role}として招待されました。\n' +
    '{days} 日以内に次のリンクを開いて招待を受けてください：\n\n' +
    '{link}\n\nリンクは一度だけ使えます。お心当たりがない場合は、このメールを無視してください。\n',
  'role.site_admin': 'サイト管理者',
  'role.editor': '編集者',
  'role.author': '投稿者',
  'role.contributor': '寄稿者',
  'role.reader': '読者',
  'test.subject': 'Folio テストメール',
  'test.text':
    '{name} 様\n\n管理画面のメール設定から送信された Folio のテストメールです。\nこのメールが届いていれば、メールは正しく配信されています。\n',
};

/** The mail catalogues by locale (the catalogue check compares their keys and arguments). */
export const MAIL_CATALOGUES: Record<(typeof CATALOGUE_LOCALES)[number], Catalogue> = {
  en,
  zh_TW,
  zh_CN,
  ja,
};

/** The locale a mail is written in: the recipient's choice, else the page's or the site's. */
export function mailLocale(...candidates: (string | null | undefined)[]): string {
  const chosen = candidates.find((locale): locale is string => typeof locale === 'string' && locale !== '');
  return matchLocale(chosen ?? 'en', CATALOGUE_LOCALES);
}

/** One message of a mail in a locale (English where the locale has no catalogue). */
export function mailText(locale: string, key: MailKey, vars: MessageVars = {}): string {
  const name = mailLocale(locale) as keyof typeof MAIL_CATALOGUES;
  return formatMessage(MAIL_CATALOGUES[name][key] ?? en[key], vars, name);
}

/** A mail's subject and text in a locale: `mail(locale, 'reset', { site, name, minutes, link })`. */
export function mailOf(
  locale: string,
  kind:
    | 'register_exists'
    | 'register'
    | 'email_taken'
    | 'email_change'
    | 'reset'
    | 'moved_in'
    | 'comment_held'
    | 'invite'
    | 'test',
  vars: MessageVars,
): { subject: string; text: string } {
  return {
    subject: mailText(locale, `${kind}.subject`, vars),
    text: mailText(locale, `${kind}.text`, vars),
  };
}
