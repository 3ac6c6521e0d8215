// The site's messages in the reader's language. The domain words its refusals and validation findings
// in English, the spec's Laravel-style sentences that API v1 answers byte for byte (spec section 7);
// the public site shows the same findings to a reader in the page's locale. This module reads the
// English sentence back into a key of the theme's catalogue and its arguments (`The email field is
// required.` -> `validation.required` with `attribute: t('attribute.email')`), so the domain and
// API v1 keep their words and the site speaks the reader's. A sentence it does not know is shown as
// it is (never lost).
import type { Translate } from './theme-i18n.js';

type Rule = [RegExp, string, (match: RegExpExecArray) => Record<string, unknown>];

const attribute = (index: number) => (match: RegExpExecArray) => ({ attribute: match[index] ?? '' });
const withNumber = (name: string) => (match: RegExpExecArray) => ({
  attribute: match[1] ?? '',
  [name]: Number(match[2]),
});

const TOO_MANY: Record<string, string> = {
  'login attempts': 'logins',
  registrations: 'registrations',
  'password reset requests': 'resets',
};

// Most specific first: "may not be greater than 5 characters" before "may not be greater than 5".
const RULES: Rule[] = [
  [/^The (.+) field is required\.$/, 'validation.required', attribute(1)],
  [/^The (.+) must be a string\.$/, 'validation.string', attribute(1)],
  [/^The (.+) must be an integer\.$/, 'validation.integer', attribute(1)],
  [/^The (.+) must be an array\.$/, 'validation.array', attribute(1)],
  [/^The (.+) field must be true or false\.$/, 'validation.boolean', attribute(1)],
  [/^The (.+) is not a valid date\.$/, 'validation.date', attribute(1)],
  [/^The selected (.+) is invalid\.$/, 'validation.invalid', attribute(1)],
  [/^The (.+) format is invalid\.$/, 'validation.format', attribute(1)],
  [/^The (.+) must be a valid email address\.$/, 'validation.email', attribute(1)],
  [/^The (.+) must be an http or https URL\.$/, 'validation.url', attribute(1)],
  [/^The (.+) may not be greater than (\d+) characters\.$/, 'validation.max_string', withNumber('max')],
  [/^The (.+) may not have more than (\d+) items\.$/, 'validation.max_items', withNumber('max')],
  [/^The (.+) may not be greater than (\d+)\.$/, 'validation.max', withNumber('max')],
  [/^The (.+) must be at least (\d+) characters\.$/, 'validation.min_string', withNumber('min')],
  [/^The (.+) must have at least (\d+) items\.$/, 'validation.min_items', withNumber('min')],
  [/^The (.+) must be at least (\d+)\.$/, 'validation.min', withNumber('min')],
  [/^The (.+) confirmation does not match\.$/, 'validation.confirmed', attribute(1)],
  [/^The current password is incorrect\.$/, 'validation.current_password', () => ({})],
  [/^The (.+) has already been taken\.$/, 'validation.taken', attribute(1)],
  [
    /^The (.+) must be 3 to 32 lower-case letters, digits, - or _\.$/,
    'validation.username_format',
    attribute(1),
  ],
  [
    /^Each tag may not be greater than (\d+) characters\.$/,
    'validation.tag_too_long',
    (m) => ({ max: Number(m[1]) }),
  ],
  [
    /^Too many searches at once from your address \(at most (\d+) at a time\)\. Try again in a second\.$/,
    'search.too_many_at_once',
    (m) => ({ max: Number(m[1]) }),
  ],
  [
    /^Too many searches from your address \(at most (\d+) a minute\)\. Try again in (\d+) seconds?\.$/,
    'search.too_many_minute',
    (m) => ({ max: Number(m[1]), seconds: Number(m[2]) }),
  ],
  [
    /^Too many (login attempts|registrations|password reset requests)\. Please try again in (\d+) minutes?\.$/,
    'error.too_many',
    (m) => ({ what: TOO_MANY[m[1] ?? ''] ?? 'other', minutes: Number(m[2]) }),
  ],
];

/** Sentences of the domain and the HTTP layer the site shows as they are in English. */
const SENTENCES: Record<string, string> = {
  'These credentials do not match our records.': 'login.failed',
  'Cross-site form submission refused.': 'error.cross_site',
  'The form has expired; reload the page and try again.': 'error.csrf',
  'Comments are closed.': 'comments.closed',
  'This site does not take new accounts.': 'register.closed.text',
  'This invitation is for another address.': 'invite.wrong_address',
  'An account with this address exists: sign in to accept.': 'invite.exists',
  'This person is already a member of the website.': 'invite.already_member',
};

/** One English message of the domain in the page's locale (as it is when unknown). */
export function localizeMessage(message: string, t: Translate): string {
  const key = SENTENCES[message];
  if (key) return t(key);
  for (const [pattern, name, vars] of RULES) {
    const match = pattern.exec(message);
    if (!match) continue;
    const values = vars(match);
    if (typeof values.attribute === 'string') {
      const attributeKey = `attribute.${values.attribute}`;
      const word = t(attributeKey);
      values.attribute = word === attributeKey ? values.attribute : word;
    }
    return t(name, values);
  }
  return message;
}

/** A form's messages by field, in the page's locale. */
export function localizeErrors(errors: Record<string, string[]>, t: Translate): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(errors).map(([field, messages]) => [field, messages.map((m) => localizeMessage(m, t))]),
  );
}
