// Password reset by a one-time link in a mail. The request's answer is the same whether or not the
// email has an account; the token is in the URL, so its pages send no Referer.
import { passwordForgotInput, passwordResetInput } from '../../../domain/people/account-input.js';
import { siteActor, urlFor } from '../../context.js';
import { clientAddress, signOut } from '../../session.js';
import type { AccountPages } from './forms.js';
import { limited, tooMany } from './forms.js';

export function passwordResetRoutes(pages: AccountPages): void {
  const { kit } = pages;
  const { services } = kit;

  const forgotForm = pages.form('user/forgot', 'forgot.title', '/user/password/forgot/submit');

  kit.page('GET', '/user/password/forgot', { name: 'users.password.forgot' }, async (request, reply, state) =>
    forgotForm(request, reply, state),
  );

  pages.formPost(
    '/user/password/forgot/submit',
    'users.password.forgot.submit',
    passwordForgotInput,
    (request, reply, state) => ({
      fields: ['email'],
      form: forgotForm,
      action: async (input, again) => {
        const retryAfter = limited(
          reply,
          await services.throttle.resetAttempt(input.email, clientAddress(request)),
        );
        if (retryAfter !== null)
          return again(429, { email: [tooMany('password reset requests', retryAfter)] });
        // The mail goes out in the background.
        services.accounts.requestPasswordReset(
          input.email,
          (token) => pages.mailLink(state, `/user/password/reset/${token}`),
          pages.mailSite(state),
        );
        return pages.mailSent(request, reply, state, 'forgot.sent');
      },
    }),
  );

  const deadReset = { status: 404, key: 'reset.dead' };
  pages.tokenLink({
    path: '/user/password/reset',
    name: 'users.password.reset',
    template: 'user/reset',
    words: { title: 'reset.title' },
    valid: (token) => services.accounts.resetTokenValid(token),
    dead: deadReset,
    schema: passwordResetInput,
    action: async (token, input, request, reply, state) => {
      if (!(await services.accounts.resetPassword(token, input.password, siteActor(request, state).origin))) {
        return pages.deadLink(request, reply, state, deadReset);
      }
      // Every session of the account ended; the visitor's own cookie goes too.
      await signOut(services, request, reply);
      return reply.redirect(`${urlFor(state, '/user/login')}?reset=1`, 303);
    },
  });
}
